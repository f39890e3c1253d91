/**
 * The editor's node and edge forms against the node-type catalog (what `GET /api/v1/node-types` serves
 * and the server validates with): every catalog property is a field of its node type's form, with the
 * catalog's label, help, required flag, allowed values, bounds and row columns, and each one shows
 * under the conditions the catalog states.
 */
import type { PropertySpec } from "@agentline/api/workflows/NodeSpec"
import { EDGE_PROPERTY_SPECS, NODE_TYPE_SPECS } from "@agentline/api/workflows/NodeTypes"
import { describe, expect, it } from "@effect/vitest"
import { connectionProblem, MAX_INSTANCES, NODE_TYPE_LABELS, NODE_TYPES } from "../src/pages/agents/definitionGraph.js"
import { displayValue, EDGE_FIELDS, type FieldSpec, isShown, NODE_FIELDS, visibleFields } from "../src/pages/agents/nodeFields.js"

const expectedKind = (p: PropertySpec): FieldSpec["kind"] =>
  p.type === "boolean"
    ? "checkbox"
    : p.type === "number"
    ? "number"
    : p.type === "options"
    ? "select"
    : p.type === "fixed_collection"
    ? "rows"
    : p.type === "json"
    ? "json"
    : p.type === "tool_refs" || p.type === "document_refs"
    ? "lines"
    : p.type === "mention_textarea" || p.editor === "textarea"
    ? "textarea"
    : p.editor === "password"
    ? "secret"
    : "text"

/** The form fields match the catalog properties one for one. */
const expectFieldsOf = (fields: ReadonlyArray<FieldSpec>, properties: ReadonlyArray<PropertySpec>, at: string) => {
  expect(fields.map((f) => f.name), at).toEqual(properties.map((p) => p.name))
  properties.forEach((p, i) => {
    const field = fields[i]!
    const where = `${at}.${p.name}`
    expect(field.label, where).toBe(p.display_name)
    expect(field.help, where).toBe(p.description)
    expect(field.required === true, where).toBe(p.required)
    expect(field.kind, where).toBe(expectedKind(p))
    expect(field.options?.map((o) => o.value), where).toEqual(p.options?.map((o) => String(o.value)))
    expect(field.min, where).toBe(p.min_value ?? undefined)
    expect(field.max, where).toBe(p.max_value ?? undefined)
    if (p.type === "number") expect(field.step, where).toBe(p.renderer_options?.number_input?.fractional === true ? undefined : 1)
    expect(field.defaultValue, where).toEqual(p.default ?? undefined)
    if (p.properties !== null) expectFieldsOf(field.columns ?? [], p.properties, where)
  })
}

/** Data under which the catalog's conditions for `property` hold. */
const showing = (property: PropertySpec): Record<string, unknown> => ({
  ...Object.fromEntries(Object.entries(property.display_options?.show ?? {}).map(([name, values]) => [name, values[0]])),
  ...Object.fromEntries(Object.entries(property.display_options?.hide ?? {}).map(([name, values]) => [name, values.includes("set") ? "other" : "set"]))
})

describe("node forms follow the node-type catalog", () => {
  it("node types, their labels and instance limits are the catalog's", () => {
    expect([...NODE_TYPES]).toEqual(NODE_TYPE_SPECS.map((s) => s.name))
    for (const spec of NODE_TYPE_SPECS) {
      expect(NODE_TYPE_LABELS[spec.name as keyof typeof NODE_TYPE_LABELS]).toBe(spec.display_name)
      expect(MAX_INSTANCES[spec.name as keyof typeof MAX_INSTANCES]).toBe(spec.graph_constraints?.max_instances ?? undefined)
    }
  })

  it("each node type's form has the catalog's properties, as the catalog describes them", () => {
    for (const spec of NODE_TYPE_SPECS) expectFieldsOf(NODE_FIELDS[spec.name as keyof typeof NODE_FIELDS], spec.properties, spec.name)
    expectFieldsOf(EDGE_FIELDS, EDGE_PROPERTY_SPECS, "edge")
  })

  it("every field shows when the catalog's conditions hold; fields without conditions always show", () => {
    for (const spec of NODE_TYPE_SPECS) {
      const fields = NODE_FIELDS[spec.name as keyof typeof NODE_FIELDS]
      for (const property of spec.properties) {
        const field = fields.find((f) => f.name === property.name)!
        expect(isShown(field, showing(property), fields), `${spec.name}.${property.name}`).toBe(true)
        if (property.display_options === null) expect(isShown(field, {}, fields), `${spec.name}.${property.name}`).toBe(true)
      }
    }
  })

  it("conditional fields hide by the catalog's rules and defaults, and show when the server reports a problem with them", () => {
    const start = NODE_FIELDS.startCall
    const names = (data: Record<string, unknown>, problem?: string) => visibleFields(start, data, (n) => n === problem).map((f) => f.name)
    expect(names({})).not.toContain("greeting_recording_id")
    expect(names({ greeting_type: "audio" })).toContain("greeting_recording_id")
    expect(names({}, "greeting_recording_id")).toContain("greeting_recording_id")
    // delayed_start defaults to false, so the duration shows only once it is on.
    expect(names({})).not.toContain("delayed_start_duration")
    expect(names({ delayed_start: true })).toContain("delayed_start_duration")
    // Kept for definitions that carry them, not offered to others.
    expect(names({})).not.toContain("pre_call_fetch_enabled")
    expect(names({ pre_call_fetch_enabled: false })).toContain("pre_call_fetch_enabled")
    expect(names({})).not.toContain("mcp_tool_filters")
    // qa_use_workflow_llm defaults to true: the provider fields wait until it is turned off; Azure's endpoint needs both.
    const qa = (data: Record<string, unknown>) => visibleFields(NODE_FIELDS.qa, data).map((f) => f.name)
    expect(qa({})).not.toContain("qa_provider")
    expect(qa({ qa_use_workflow_llm: false })).toEqual(expect.arrayContaining(["qa_provider", "qa_model", "qa_api_key"]))
    expect(qa({ qa_use_workflow_llm: false })).not.toContain("qa_endpoint")
    expect(qa({ qa_use_workflow_llm: false, qa_provider: "azure" })).toContain("qa_endpoint")
  })

  it("a checkbox left absent shows the server's default", () => {
    const field = NODE_FIELDS.agentNode.find((f) => f.name === "add_global_prompt")!
    expect(displayValue({}, field)).toBe(true)
    expect(displayValue({ add_global_prompt: false }, field)).toBe(false)
    expect(displayValue({}, NODE_FIELDS.agentNode.find((f) => f.name === "allow_interrupt")!)).toBe(false)
  })

  it("the editor refuses the edges the catalog's graph constraints forbid, and allows the others", () => {
    for (const source of NODE_TYPE_SPECS) {
      for (const target of NODE_TYPE_SPECS) {
        const forbidden = source.graph_constraints?.max_outgoing === 0 || target.graph_constraints?.max_incoming === 0
        const problem = connectionProblem(source.name as (typeof NODE_TYPES)[number], target.name as (typeof NODE_TYPES)[number])
        expect(problem !== null, `${source.name} → ${target.name}: ${problem}`).toBe(forbidden)
      }
    }
  })
})
