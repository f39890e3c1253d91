/**
 * One language model reply, streamed: its text cut into sentences as it arrives (each handed on at
 * once, so speech starts on the first), its tool calls collected, its tokens counted. The runtime
 * resolves tool calls itself (they move the conversation or call an organization's tool), so the
 * toolkit given to the model has no handlers that run.
 */
import type { AiError } from "@effect/ai"
import type { LanguageModel, Prompt, Tool, Toolkit } from "@effect/ai"
import { Effect, Stream } from "effect"
import { emptySentenceBuffer, flushText, pushText } from "../session/Sentences.js"

/** The language model agents talk through, with its name for `usage_info`. */
export interface NamedModel {
  readonly name: string
  readonly model: LanguageModel.Service
}

export interface ModelToolCall {
  readonly id: string
  readonly name: string
  readonly params: unknown
}

export interface Tokens {
  inputTokens: number
  outputTokens: number
}

/** `tools` offered to the model; calls are returned, never run by `@effect/ai`. */
export const offeredToolkit = (tools: Readonly<Record<string, Tool.Any>>): Toolkit.WithHandler<Record<string, Tool.Any>> => ({
  tools,
  handle: (name) => Effect.dieMessage(`the tool ${String(name)} is resolved by the voice runtime, not by @effect/ai`)
})

/**
 * Streams one reply: `sentence` gets each sentence as soon as it is complete, `firstToken` runs at the
 * first text or tool call; returns the tool calls. Tokens are added to `tokens`.
 */
export const streamReply = <E>(options: {
  readonly model: NamedModel
  readonly prompt: ReadonlyArray<Prompt.MessageEncoded>
  readonly tools: Readonly<Record<string, Tool.Any>>
  readonly tokens: Tokens
  readonly sentence: (text: string) => Effect.Effect<void, E>
  readonly firstToken: Effect.Effect<void>
}): Effect.Effect<ReadonlyArray<ModelToolCall>, AiError.AiError | E> =>
  Effect.suspend(() => {
    let buffer = emptySentenceBuffer
    let first = true
    const calls: Array<ModelToolCall> = []
    const started = Effect.suspend(() => {
      if (!first) return Effect.void
      first = false
      return options.firstToken
    })
    const hasTools = Object.keys(options.tools).length > 0
    const parts = options.model.model.streamText({
      prompt: options.prompt,
      ...(hasTools ? { toolkit: offeredToolkit(options.tools), disableToolCallResolution: true as const } : {})
    })
    return parts.pipe(
      Stream.runForEach((part): Effect.Effect<void, E> => {
        switch (part.type) {
          case "text-delta": {
            const [next, done] = pushText(buffer, part.delta)
            buffer = next
            return Effect.zipRight(started, Effect.forEach(done, options.sentence, { discard: true }))
          }
          case "tool-call":
            calls.push({ id: part.id, name: part.name, params: part.params })
            return started
          case "finish":
            options.tokens.inputTokens += part.usage.inputTokens ?? 0
            options.tokens.outputTokens += part.usage.outputTokens ?? 0
            return Effect.void
          default:
            return Effect.void
        }
      }),
      Effect.zipRight(Effect.suspend(() => Effect.forEach(flushText(buffer), options.sentence, { discard: true }))),
      Effect.as(calls)
    )
  })
