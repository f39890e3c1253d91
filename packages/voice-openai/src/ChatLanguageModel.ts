/**
 * An `@effect/ai` `LanguageModel` over Chat Completions, for OpenAI and any OpenAI-compatible server.
 * The HTTP side (base URL, bearer key, SSE framing, HTTP errors as `AiError`s) is
 * `@effect/ai-openai`'s `OpenAiClient`; `layerConfig` reads `OPENAI_API_KEY` and `OPENAI_BASE_URL`
 * as the official SDK does.
 */
import { AiError, LanguageModel } from "@effect/ai"
import type { Response } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { HttpClientRequest } from "@effect/platform"
import { Config, Effect, Layer, Option, type Redacted, Stream } from "effect"
import { ChatCompletionChunk, ChunkError, makeChunkReader, toMessages, toTools } from "./ChatCompletions.js"

export interface ChatModelOptions {
  /** The model name the server knows, e.g. `gpt-4.1-mini`, `llama-3.3-70b-versatile`. */
  readonly model: string
  /** Sampling temperature; the server's default when absent. */
  readonly temperature?: number
}

const failure = (method: string) => (error: unknown) =>
  error instanceof ChunkError
    ? new AiError.MalformedOutput({ module: "ChatLanguageModel", method, description: error.message })
    : new AiError.UnknownError({ module: "ChatLanguageModel", method, cause: error })

export const make = (options: ChatModelOptions) =>
  Effect.gen(function*() {
    const client = yield* OpenAiClient.OpenAiClient

    const streamText = (provider: LanguageModel.ProviderOptions): Stream.Stream<Response.StreamPartEncoded, AiError.AiError> =>
      Stream.suspend(() => {
        const tools = provider.toolChoice === "none" ? [] : toTools(provider.tools)
        const toolChoice = typeof provider.toolChoice === "string"
          ? provider.toolChoice
          : "tool" in provider.toolChoice
          ? { type: "function", function: { name: provider.toolChoice.tool } }
          : provider.toolChoice.mode
        const body = {
          model: options.model,
          messages: toMessages(provider.prompt),
          ...(tools.length > 0 ? { tools, tool_choice: toolChoice, parallel_tool_calls: false } : {}),
          ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
          stream: true,
          stream_options: { include_usage: true }
        }
        const request = HttpClientRequest.post("/chat/completions").pipe(HttpClientRequest.bodyUnsafeJson(body))
        const reader = makeChunkReader()
        return client.streamRequest(request, ChatCompletionChunk).pipe(
          Stream.mapConcatEffect((chunk) => Effect.try({ try: () => reader.push(chunk), catch: failure("streamText") })),
          Stream.concat(Stream.fromIterableEffect(Effect.try({ try: () => reader.end(), catch: failure("streamText") })))
        )
      })

    const generateText = (provider: LanguageModel.ProviderOptions) =>
      Stream.runCollect(streamText(provider)).pipe(
        Effect.map((chunk) => {
          const parts: Array<Response.PartEncoded> = []
          let text = ""
          for (const part of chunk) {
            if (part.type === "text-delta") text += part.delta
            else if (part.type === "text-end") {
              parts.push({ type: "text", text })
              text = ""
            } else if (part.type === "tool-call" || part.type === "finish" || part.type === "response-metadata") {
              parts.push(part)
            }
          }
          return parts
        })
      )

    return yield* LanguageModel.make({ generateText, streamText })
  })

/** `LanguageModel` for this model; needs an `OpenAiClient`. */
export const layer = (options: ChatModelOptions) => Layer.effect(LanguageModel.LanguageModel, make(options))

/** The client from the environment: `OPENAI_API_KEY` (optional for local servers), `OPENAI_BASE_URL`. */
export const clientLayerConfig = OpenAiClient.layerConfig({
  apiKey: Config.option(Config.redacted("OPENAI_API_KEY")).pipe(Config.map(Option.getOrUndefined)),
  apiUrl: Config.option(Config.string("OPENAI_BASE_URL")).pipe(Config.map(Option.getOrUndefined))
})

/** The same client with `apiKey` (an organization's stored key) instead of `OPENAI_API_KEY`. */
export const clientLayerConfigWithKey = (apiKey: Redacted.Redacted) =>
  OpenAiClient.layerConfig({
    apiKey: Config.succeed(apiKey),
    apiUrl: Config.option(Config.string("OPENAI_BASE_URL")).pipe(Config.map(Option.getOrUndefined))
  })
