/**
 * Organization tools as `@effect/ai` tools: offered with their JSON Schema as written, and a model's
 * tool call with nested arguments reaches the runtime undecoded (a language model made with
 * `LanguageModel.make`, answering one tool call), so the tool-call service can check it.
 */
import type { OfferedTool } from "@agentline/core/tools/ToolCalls"
import { LanguageModel, type Response, Tool } from "@effect/ai"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Stream } from "effect"
import { organizationToolkit } from "../../src/tools/OrganizationTools.js"

const schema = {
  type: "object",
  properties: {
    order: { type: "object", properties: { id: { type: "string" }, lines: { type: "array", items: { type: "integer" } } }, required: ["id"] },
    urgency: { type: "string", enum: ["low", "high"], description: "How soon" }
  },
  required: ["order"],
  additionalProperties: false
}

const offered = (name: string): OfferedTool => ({
  name,
  description: `${name} description`,
  parameters: schema,
  waiting: undefined,
  toolUuid: `${name}-uuid`,
  call: () => Effect.dieMessage("not called here")
})

describe("organization tools for @effect/ai", () => {
  it("each is offered by its function name, description and JSON Schema as written; taken names are left out", () => {
    const kit = organizationToolkit({ tools: [offered("lookup_order"), offered("end_call")], skipped: [] }, new Set(["end_call"]))
    expect(Object.keys(kit.tools)).toEqual(["lookup_order"])
    const tool = kit.tools.lookup_order!
    expect(tool.name).toBe("lookup_order")
    expect(tool.description).toBe("lookup_order description")
    expect(Tool.getJsonSchemaFromSchemaAst(tool.parametersSchema.ast)).toEqual(schema)
    expect(kit.find("lookup_order")?.toolUuid).toBe("lookup_order-uuid")
    expect(kit.find("end_call")).toBeUndefined()
  })

  it.effect("a model's call with nested (even wrong) arguments reaches the runtime as sent", () =>
    Effect.gen(function*() {
      const params = { order: { id: "A1", lines: [1, "two"] }, urgency: "soon" }
      const model = yield* LanguageModel.make({
        generateText: () => Effect.succeed([]),
        streamText: () =>
          Stream.make<Array<Response.StreamPartEncoded>>(
            { type: "tool-call", id: "call_1", name: "lookup_order", params, providerExecuted: false },
            { type: "finish", reason: "tool-calls", usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 } }
          )
      })
      const kit = organizationToolkit({ tools: [offered("lookup_order")], skipped: [] })
      const parts = yield* model.streamText({
        prompt: "look it up",
        toolkit: { tools: kit.tools, handle: () => Effect.dieMessage("resolved by the runtime") },
        disableToolCallResolution: true
      }).pipe(Stream.runCollect)
      const call = [...parts].find((p) => p.type === "tool-call")
      expect(call).toMatchObject({ name: "lookup_order", params })
    }))
})
