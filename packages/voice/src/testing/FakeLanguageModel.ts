/**
 * A FAKE language model for tests of the runtime's stages: each request (its messages and the names of
 * the tools offered) is answered by `reply` with text (streamed word by word) and tool calls, with 10
 * input tokens per message and one output token per word. It records every request.
 */
import { LanguageModel, type Prompt, type Response } from "@effect/ai"
import { Effect, Stream } from "effect"

export interface FakeRequest {
  readonly messages: ReadonlyArray<Prompt.Message>
  readonly tools: ReadonlyArray<string>
}

export interface FakeAnswer {
  readonly text?: string
  readonly toolCalls?: ReadonlyArray<{ readonly name: string; readonly params: unknown }>
}

/** The text of a message, whatever its parts. */
export const messageText = (message: Prompt.Message): string =>
  typeof message.content === "string"
    ? message.content
    : message.content.map((part) => part.type === "text" ? part.text : part.type === "tool-result" ? String(part.result) : "").join("")

export const make = (reply: (request: FakeRequest) => FakeAnswer) =>
  Effect.gen(function*() {
    const requests: Array<FakeRequest> = []
    let calls = 0
    const answer = (options: LanguageModel.ProviderOptions): ReadonlyArray<Response.StreamPartEncoded> => {
      const request = { messages: options.prompt.content, tools: options.tools.map((t) => t.name) }
      requests.push(request)
      const { text = "", toolCalls = [] } = reply(request)
      const words = text.split(/(?<= )/).filter((w) => w !== "")
      return [
        ...words.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
        ...toolCalls.map((c) => ({ type: "tool-call" as const, id: `call_${++calls}`, name: c.name, params: c.params })),
        {
          type: "finish" as const,
          reason: toolCalls.length > 0 ? "tool-calls" as const : "stop" as const,
          usage: { inputTokens: 10 * request.messages.length, outputTokens: words.length, totalTokens: 10 * request.messages.length + words.length }
        }
      ]
    }
    const model = yield* LanguageModel.make({
      generateText: (options) => Effect.sync(() => [...answer(options)].flatMap((p): Array<Response.PartEncoded> =>
        p.type === "text-delta" ? [{ type: "text", text: p.delta }] : p.type === "tool-call" || p.type === "finish" ? [p] : []
      )),
      streamText: (options) => Stream.suspend(() => Stream.fromIterable(answer(options)))
    })
    return { model, requests } as const
  })
