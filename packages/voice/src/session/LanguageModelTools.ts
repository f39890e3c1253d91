/**
 * A node's tools (`graph/Tools.ts`, JSON-Schema shaped) as an `@effect/ai` toolkit, and the language
 * model the runtime talks to. The runtime resolves tool calls itself (they move the conversation), so
 * the toolkit's handlers never run: they exist because `@effect/ai` wants a toolkit with handlers.
 */
import type { LanguageModel } from "@effect/ai"
import { Tool, Toolkit } from "@effect/ai"
import { Context, Effect, type Layer, type Option, Schema } from "effect"
import type { JsonSchemaObject, Tool as NodeTool } from "../graph/Tools.js"

/** The language model agents talk through, and its name for `usage_info`; none when the operator configured none. */
export class AgentLanguageModel extends Context.Tag("@agentline/voice/AgentLanguageModel")<
  AgentLanguageModel,
  Option.Option<{ readonly name: string; readonly model: LanguageModel.Service }>
>() {}

/** The speech services' keys for `usage_info` and prices (`local`, `deepgram:nova-3`, `elevenlabs:<voice>`). */
export class SpeechServiceNames extends Context.Reference<SpeechServiceNames>()("@agentline/voice/SpeechServiceNames", {
  defaultValue: () => ({ stt: "unnamed", tts: "unnamed" })
}) {}

const fieldSchema = (property: JsonSchemaObject["properties"][string]) => {
  const base = property.type === "string" ? Schema.String : property.type === "number" ? Schema.Number : Schema.Boolean
  return Schema.optional(property.description !== undefined ? base.annotations({ description: property.description }) : base)
}

const toAiTool = (tool: NodeTool) =>
  Tool.make(tool.name, {
    description: tool.description,
    parameters: Object.fromEntries(Object.entries(tool.parameters.properties).map(([name, property]) => [name, fieldSchema(property)])),
    success: Schema.String
  })

export interface NodeToolkit {
  readonly toolkit: Toolkit.Toolkit<Record<string, Tool.Any>>
  readonly handlers: Layer.Layer<never>
}

/** The toolkit of a node's tools; empty tools give none (the model just talks). */
export const nodeToolkit = (tools: ReadonlyArray<NodeTool>): NodeToolkit => {
  const toolkit = Toolkit.make(...tools.map(toAiTool)) as unknown as Toolkit.Toolkit<Record<string, Tool.Any>>
  const handlers = Object.fromEntries(tools.map((tool) => [tool.name, () => Effect.succeed("")]))
  return { toolkit, handlers: (toolkit as any).toLayer(handlers) as Layer.Layer<never> }
}
