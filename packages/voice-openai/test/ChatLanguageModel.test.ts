import { LanguageModel, Prompt, Tool, Toolkit } from "@effect/ai"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Redacted, Schema, Stream } from "effect"
import * as ChatLanguageModel from "../src/ChatLanguageModel.js"
import { toMessages } from "../src/ChatCompletions.js"
import { type Answer, chunk, reply, startFakeOpenAi, usageChunk } from "../src/testing/FakeOpenAi.js"

const MoveToBooking = Tool.make("move_to_booking", {
  description: "The caller wants to book an appointment",
  parameters: { day: Schema.String },
  success: Schema.String
})
const Tools = Toolkit.make(MoveToBooking)
const ToolHandlers = Tools.toLayer({ move_to_booking: ({ day }) => Effect.succeed(`booked ${day}`) })

/** A model against the fake at `url`, with the key given in code. */
const modelAt = (url: string) =>
  ChatLanguageModel.layer({ model: "gpt-4.1-mini" }).pipe(
    Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-test"), apiUrl: url })),
    Layer.provide(FetchHttpClient.layer)
  )

const withFake = <A, E>(answers: Array<Answer>, use: (fake: { url: string; received: Array<any> }) => Effect.Effect<A, E, LanguageModel.LanguageModel>) =>
  Effect.scoped(Effect.gen(function*() {
    const fake = yield* startFakeOpenAi(answers)
    return yield* use(fake).pipe(Effect.provide(modelAt(fake.url)))
  }))

const prompt = Prompt.make([
  { role: "system", content: "You are Ava. Greet the caller." },
  { role: "user", content: "Hi, I want to book for Tuesday." }
])

describe("ChatLanguageModel against a fake Chat Completions server", () => {
  it.effect("streams text deltas in order and reports the usage of the last chunk", () =>
    withFake([{
      _tag: "Stream",
      chunks: [
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "Sure, " }),
        chunk({ content: "Tuesday works." }),
        chunk({}, "stop"),
        usageChunk(412, 23)
      ]
    }], (fake) =>
      Effect.gen(function*() {
        const parts = yield* LanguageModel.streamText({ prompt }).pipe(Stream.runCollect)
        const text = [...parts].flatMap((p) => (p.type === "text-delta" ? [p.delta] : [])).join("")
        expect(text).toBe("Sure, Tuesday works.")
        const finish = [...parts].find((p) => p.type === "finish")!
        expect(finish.type === "finish" && finish.reason).toBe("stop")
        expect(finish.type === "finish" && [finish.usage.inputTokens, finish.usage.outputTokens, finish.usage.totalTokens])
          .toEqual([412, 23, 435])
        const [request] = fake.received
        expect(request.path).toBe("/v1/chat/completions")
        expect(request.authorization).toBe("Bearer sk-test")
        expect(request.body).toMatchObject({
          model: "gpt-4.1-mini",
          stream: true,
          stream_options: { include_usage: true },
          messages: [
            { role: "system", content: "You are Ava. Greet the caller." },
            { role: "user", content: "Hi, I want to book for Tuesday." }
          ]
        })
        expect(request.body.tools).toBeUndefined()
      })))

  it.effect("assembles a tool call from its argument deltas and sends the tools as functions", () =>
    withFake([{
      _tag: "Stream",
      chunks: [
        chunk({ role: "assistant", content: "" }),
        chunk({ tool_calls: [{ index: 0, id: "call_abc", type: "function", function: { name: "move_to_booking", arguments: "" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "{\"day\":\"Tu" } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: "esday\"}" } }] }),
        chunk({}, "tool_calls"),
        usageChunk(500, 12)
      ]
    }], (fake) =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({ prompt, toolkit: Tools, disableToolCallResolution: true })
        expect(response.toolCalls.map((call) => [call.id, call.name, call.params])).toEqual([
          ["call_abc", "move_to_booking", { day: "Tuesday" }]
        ])
        expect(response.finishReason).toBe("tool-calls")
        expect(response.usage.inputTokens).toBe(500)
        const tools = fake.received[0].body.tools
        expect(tools).toHaveLength(1)
        expect(tools[0]).toMatchObject({
          type: "function",
          function: { name: "move_to_booking", description: "The caller wants to book an appointment" }
        })
        expect(tools[0].function.parameters).toMatchObject({ type: "object", properties: { day: { type: "string" } } })
        expect(fake.received[0].body).toMatchObject({ tool_choice: "auto", parallel_tool_calls: false })
      }).pipe(Effect.provide(ToolHandlers))))

  it.effect("a server without usage (some compatibles) still finishes, with unknown token counts", () =>
    withFake([{ _tag: "Stream", chunks: [chunk({ content: "Hello." }, "stop")] }], () =>
      Effect.gen(function*() {
        const response = yield* LanguageModel.generateText({ prompt })
        expect(response.text).toBe("Hello.")
        expect(response.usage.inputTokens).toBeUndefined()
      })))

  it.effect("429 Too Many Requests fails with an HTTP response error carrying the status", () =>
    withFake([{ _tag: "Status", status: 429, message: "Rate limit reached", type: "requests" }], () =>
      Effect.gen(function*() {
        const error = yield* LanguageModel.generateText({ prompt }).pipe(Effect.flip)
        expect(error._tag).toBe("HttpResponseError")
        expect(error._tag === "HttpResponseError" && error.response.status).toBe(429)
      })))

  it.effect("a connection dropped mid-stream fails the reply instead of ending it early", () =>
    withFake([{ _tag: "Drop", chunks: [chunk({ content: "Sure, " })] }], () =>
      Effect.gen(function*() {
        const seen: Array<string> = []
        const error = yield* LanguageModel.streamText({ prompt }).pipe(
          Stream.runForEach((part) => Effect.sync(() => part.type === "text-delta" && seen.push(part.delta))),
          Effect.flip
        )
        expect(seen).toEqual(["Sure, "])
        expect(["HttpResponseError", "MalformedOutput"]).toContain(error._tag)
      })))

  it.effect("a stream closed cleanly before the reply finished is an error, not a short reply", () =>
    withFake([{ _tag: "Stream", chunks: [chunk({ content: "Sure" })], done: false }], () =>
      Effect.gen(function*() {
        const error = yield* LanguageModel.generateText({ prompt }).pipe(Effect.flip)
        expect(error._tag).toBe("MalformedOutput")
      })))

  it.effect("an error object in the stream fails the reply with its message", () =>
    withFake([{ _tag: "Stream", chunks: [chunk({ content: "Su" }), { error: { message: "model overloaded", type: "server_error" } }] }], () =>
      Effect.gen(function*() {
        const error = yield* LanguageModel.generateText({ prompt }).pipe(Effect.flip)
        expect(error._tag === "MalformedOutput" && error.description).toBe("model overloaded")
      })))

  it.effect("OPENAI_BASE_URL and OPENAI_API_KEY point the client at another server", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeOpenAi([{ _tag: "Stream", chunks: [chunk({ content: "Hi." }, "stop")] }])
      const env = ConfigProvider.fromMap(new Map([["OPENAI_BASE_URL", fake.url], ["OPENAI_API_KEY", "sk-env"]]))
      const model = ChatLanguageModel.layer({ model: "llama-3.3" }).pipe(
        Layer.provide(ChatLanguageModel.clientLayerConfig),
        Layer.provide(FetchHttpClient.layer),
        Layer.provide(Layer.setConfigProvider(env))
      )
      const response = yield* LanguageModel.generateText({ prompt }).pipe(Effect.provide(model))
      expect(response.text).toBe("Hi.")
      expect(fake.received[0].authorization).toBe("Bearer sk-env")
      expect(fake.received[0].body.model).toBe("llama-3.3")
    })))
})

describe("toMessages", () => {
  it("carries a tool call and its result as an assistant tool_calls message and a tool message", () => {
    const history = Prompt.make([
      { role: "user", content: "Tuesday please" },
      {
        role: "assistant",
        content: [
          { type: "text", text: "One moment." },
          { type: "tool-call", id: "call_1", name: "move_to_booking", params: { day: "Tuesday" }, providerExecuted: false }
        ]
      },
      { role: "tool", content: [{ type: "tool-result", id: "call_1", name: "move_to_booking", isFailure: false, result: "booked Tuesday", providerExecuted: false }] }
    ])
    expect(toMessages(history)).toEqual([
      { role: "user", content: "Tuesday please" },
      {
        role: "assistant",
        content: "One moment.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "move_to_booking", arguments: "{\"day\":\"Tuesday\"}" } }]
      },
      { role: "tool", tool_call_id: "call_1", content: "\"booked Tuesday\"" }
    ])
  })
})

describe("the fake's responder", () => {
  it.effect("answers from the request when the script is empty (a conversation partner)", () =>
    Effect.scoped(Effect.gen(function*() {
      const fake = yield* startFakeOpenAi([], (request) =>
        reply(`You said ${request.body.messages.length} messages.`, request.body.tools ? [{ name: "move_to_booking", arguments: { day: "Friday" } }] : []))
      const model = modelAt(fake.url)
      const plain = yield* LanguageModel.generateText({ prompt }).pipe(Effect.provide(model))
      expect(plain.text).toBe("You said 2 messages.")
      const withTools = yield* LanguageModel.generateText({ prompt, toolkit: Tools, disableToolCallResolution: true }).pipe(
        Effect.provide(model),
        Effect.provide(ToolHandlers)
      )
      expect(withTools.toolCalls.map((call) => call.params)).toEqual([{ day: "Friday" }])
    })))
})
