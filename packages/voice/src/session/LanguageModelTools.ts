/**
 * A node's own tools (`graph/Tools.ts`: transitions, end call, extraction; JSON-Schema shaped) as
 * `@effect/ai` tools, and the language model the runtime talks to. The runtime resolves tool calls
 * itself (they move the conversation), so nothing here runs a tool.
 */
import type { LanguageModel } from "@effect/ai"
import { Tool } from "@effect/ai"
import { Context, type Option, Schema } from "effect"
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

const toAiTool = (tool: NodeTool): Tool.Any =>
  Tool.make(tool.name, {
    description: tool.description,
    parameters: Object.fromEntries(Object.entries(tool.parameters.properties).map(([name, property]) => [name, fieldSchema(property)])),
    success: Schema.String
  })

/**
 * The `@effect/ai` tools made so far, by what they are made of: a node's tools are the same at every
 * turn of every call of an agent, and making one builds its parameters' schema (a cost on each turn of
 * each call otherwise). Bounded: cleared when it holds more than a few thousand shapes.
 */
const made = new Map<string, Readonly<Record<string, Tool.Any>>>()
const MAX_MADE = 4096

/** A node's own tools by name, to offer the model; empty tools give none (the model just talks). */
export const graphTools = (tools: ReadonlyArray<NodeTool>): Readonly<Record<string, Tool.Any>> => {
  if (tools.length === 0) return {}
  const key = JSON.stringify(tools)
  const known = made.get(key)
  if (known !== undefined) return known
  const fresh = Object.fromEntries(tools.map((tool) => [tool.name, toAiTool(tool)]))
  if (made.size >= MAX_MADE) made.clear()
  made.set(key, fresh)
  return fresh
}
