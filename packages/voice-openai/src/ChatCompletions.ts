/**
 * The Chat Completions wire format (`POST {base}/chat/completions`, `stream: true`), which OpenAI and
 * every OpenAI-compatible server (Groq, Together, vLLM, Ollama) speak. `@effect/ai-openai`'s own
 * language model uses the Responses API, which most compatible servers lack; this module maps
 * `@effect/ai`'s prompt and tools to Chat Completions and its streamed chunks back to `@effect/ai`
 * response parts. Pure: the transport is `OpenAiClient.streamRequest`.
 */
import type { Prompt, Response, Tool } from "@effect/ai"
import { Tool as Tools } from "@effect/ai"
import { Schema } from "effect"

const ToolCallDelta = Schema.Struct({
  index: Schema.Number,
  id: Schema.optional(Schema.NullOr(Schema.String)),
  type: Schema.optional(Schema.NullOr(Schema.String)),
  function: Schema.optional(Schema.NullOr(Schema.Struct({
    name: Schema.optional(Schema.NullOr(Schema.String)),
    arguments: Schema.optional(Schema.NullOr(Schema.String))
  })))
})

const Usage = Schema.Struct({
  prompt_tokens: Schema.Number,
  completion_tokens: Schema.Number,
  total_tokens: Schema.optional(Schema.Number),
  prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: Schema.optional(Schema.Number) }))),
  completion_tokens_details: Schema.optional(
    Schema.NullOr(Schema.Struct({ reasoning_tokens: Schema.optional(Schema.Number) }))
  )
})

/** One `data:` event of the stream: a chunk, or an error object some servers send mid-stream. */
export const ChatCompletionChunk = Schema.Struct({
  id: Schema.optional(Schema.String),
  model: Schema.optional(Schema.String),
  created: Schema.optional(Schema.Number),
  choices: Schema.optionalWith(
    Schema.Array(Schema.Struct({
      index: Schema.Number,
      delta: Schema.optional(Schema.NullOr(Schema.Struct({
        role: Schema.optional(Schema.NullOr(Schema.String)),
        content: Schema.optional(Schema.NullOr(Schema.String)),
        tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCallDelta)))
      }))),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String))
    })),
    { default: () => [] }
  ),
  usage: Schema.optional(Schema.NullOr(Usage)),
  error: Schema.optional(Schema.Struct({ message: Schema.optional(Schema.String), type: Schema.optional(Schema.NullOr(Schema.String)) }))
})
export type ChatCompletionChunk = typeof ChatCompletionChunk.Type

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<
      { readonly id: string; readonly type: "function"; readonly function: { readonly name: string; readonly arguments: string } }
    >
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

const textOf = (parts: ReadonlyArray<{ readonly type: string }>): string =>
  parts.flatMap((part) => (part.type === "text" ? [(part as Prompt.TextPart).text] : [])).join("")

/** The prompt as Chat Completions messages (files and reasoning are not carried: voice has none). */
export const toMessages = (prompt: Prompt.Prompt): Array<ChatMessage> =>
  prompt.content.flatMap((message): Array<ChatMessage> => {
    switch (message.role) {
      case "system":
        return [{ role: "system", content: message.content }]
      case "user":
        return [{ role: "user", content: textOf(message.content) }]
      case "assistant": {
        const text = textOf(message.content)
        const calls = message.content.flatMap((part) =>
          part.type === "tool-call"
            ? [{ id: part.id, type: "function" as const, function: { name: part.name, arguments: JSON.stringify(part.params) } }]
            : []
        )
        const results = message.content.flatMap((part): Array<ChatMessage> =>
          part.type === "tool-result"
            ? [{ role: "tool", tool_call_id: part.id, content: JSON.stringify(part.result) }]
            : []
        )
        const assistant: ChatMessage = calls.length > 0
          ? { role: "assistant", content: text.length > 0 ? text : null, tool_calls: calls }
          : { role: "assistant", content: text }
        return [assistant, ...results]
      }
      case "tool":
        return message.content.map((part) => ({
          role: "tool" as const,
          tool_call_id: part.id,
          content: JSON.stringify(part.result)
        }))
    }
  })

/** The tools as Chat Completions functions. */
export const toTools = (tools: ReadonlyArray<Tool.Any>) =>
  tools.map((tool) => ({
    type: "function" as const,
    function: {
      name: tool.name,
      description: Tools.getDescription(tool as never) ?? "",
      parameters: Tools.getJsonSchema(tool as never)
    }
  }))

export const finishReason = (reason: string): Response.FinishReason => {
  switch (reason) {
    case "stop":
      return "stop"
    case "length":
      return "length"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case "content_filter":
      return "content-filter"
    default:
      return "other"
  }
}

/** Why a stream could not be read as a reply. */
export class ChunkError extends Error {}

/**
 * Reads the chunks of one streamed reply in order and says which response parts they make. Tool
 * calls arrive in pieces: the first piece of each `index` has its id and name, later ones carry
 * pieces of the arguments; a call is complete when the reply finishes. Usage comes, when asked
 * for, on an extra last chunk without choices.
 */
export const makeChunkReader = () => {
  let textOpen = false
  let finished: string | undefined
  let metadataSent = false
  let usage: typeof Usage.Type | undefined
  const calls = new Map<number, { id: string; name: string; args: string }>()
  const textId = "text-0"

  const closeOpenParts = (): Array<Response.StreamPartEncoded> => {
    const parts: Array<Response.StreamPartEncoded> = []
    if (textOpen) {
      parts.push({ type: "text-end", id: textId })
      textOpen = false
    }
    for (const call of [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)) {
      let params: unknown
      try {
        params = call.args.trim() === "" ? {} : JSON.parse(call.args)
      } catch {
        throw new ChunkError(`the arguments of tool call ${call.name} are not JSON: ${call.args}`)
      }
      parts.push({ type: "tool-params-end", id: call.id })
      parts.push({ type: "tool-call", id: call.id, name: call.name, params })
    }
    calls.clear()
    return parts
  }

  return {
    push: (chunk: ChatCompletionChunk): Array<Response.StreamPartEncoded> => {
      if (chunk.error !== undefined) throw new ChunkError(chunk.error.message ?? "the server reported an error")
      const parts: Array<Response.StreamPartEncoded> = []
      if (!metadataSent) {
        metadataSent = true
        parts.push({
          type: "response-metadata",
          id: chunk.id,
          modelId: chunk.model,
          timestamp: chunk.created !== undefined ? new Date(chunk.created * 1000).toISOString() : undefined
        })
      }
      for (const choice of chunk.choices) {
        const content = choice.delta?.content
        if (content !== undefined && content !== null && content.length > 0) {
          if (!textOpen) {
            textOpen = true
            parts.push({ type: "text-start", id: textId })
          }
          parts.push({ type: "text-delta", id: textId, delta: content })
        }
        for (const delta of choice.delta?.tool_calls ?? []) {
          let call = calls.get(delta.index)
          if (call === undefined) {
            const id = delta.id ?? `call_${delta.index}`
            const name = delta.function?.name
            if (name === undefined || name === null) throw new ChunkError(`tool call ${delta.index} starts without a name`)
            call = { id, name, args: "" }
            calls.set(delta.index, call)
            parts.push({ type: "tool-params-start", id, name })
          }
          const piece = delta.function?.arguments
          if (piece !== undefined && piece !== null && piece.length > 0) {
            call.args += piece
            parts.push({ type: "tool-params-delta", id: call.id, delta: piece })
          }
        }
        if (choice.finish_reason !== undefined && choice.finish_reason !== null) {
          finished = choice.finish_reason
          parts.push(...closeOpenParts())
        }
      }
      if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage
      return parts
    },
    /** The closing part; fails when the stream ended before the reply finished (a dropped connection). */
    end: (): Array<Response.StreamPartEncoded> => {
      if (finished === undefined) throw new ChunkError("the stream ended before the reply finished")
      return [{
        type: "finish",
        reason: finishReason(finished),
        usage: {
          inputTokens: usage?.prompt_tokens,
          outputTokens: usage?.completion_tokens,
          totalTokens: usage?.total_tokens ??
            (usage !== undefined ? usage.prompt_tokens + usage.completion_tokens : undefined),
          ...(usage?.prompt_tokens_details?.cached_tokens !== undefined
            ? { cachedInputTokens: usage.prompt_tokens_details.cached_tokens }
            : {}),
          ...(usage?.completion_tokens_details?.reasoning_tokens !== undefined
            ? { reasoningTokens: usage.completion_tokens_details.reasoning_tokens }
            : {})
        }
      }]
    }
  }
}
