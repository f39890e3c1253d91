/**
 * The node-type catalog against the server's definition validation, walking every node type and every
 * property the catalog states: what it calls required is refused when absent, what it calls optional
 * is accepted when absent, types, options, bounds and patterns are enforced, defaults and examples are
 * accepted, and the graph constraints are the ones a save applies. The catalog and the validator are
 * made from the same declarations; this is what keeps them from drifting if one is ever edited alone.
 */
import { NODE_TYPE_SPECS, NODE_TYPES, type NodeType } from "@agentline/api/workflows/NodeTypes"
import type { PropertySpec } from "@agentline/api/workflows/NodeSpec"
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { validateDefinition } from "../../src/workflows/DefinitionValidation.js"

type Data = Record<string, unknown>

const specOf = (type: NodeType) => NODE_TYPE_SPECS.find((s) => s.name === type)!

/** The problems the validator finds with one node of `type` holding `data` (beside a start node). */
const nodeIssues = (type: NodeType, data: unknown): ReadonlyArray<string | null> => {
  const nodes: Array<unknown> = [{ id: "n", type, data }]
  if (type !== "startCall") nodes.push({ id: "start", type: "startCall", data: { name: "Start", prompt: "p" } })
  return validateDefinition({ nodes, edges: [] }).errors.filter((e) => e.id === "n").map((e) => e.field)
}

/** A value the catalog says `property` accepts. */
const validValue = (property: PropertySpec): unknown => {
  switch (property.type) {
    case "number":
      return property.min_value ?? 0
    case "boolean":
      return true
    case "options":
    case "multi_options":
      return property.options![0]!.value
    case "fixed_collection":
      return [requiredOnly(property.properties!)]
    case "json":
      return {}
    case "tool_refs":
    case "document_refs":
      return ["3f6c2a1e-0000-4000-8000-000000000001"]
    default:
      // A patterned field's placeholder is an example of it (a transfer's target); others take any text.
      return property.pattern !== null && property.placeholder !== null && new RegExp(property.pattern).test(property.placeholder)
        ? property.placeholder
        : "abc"
  }
}

/** Values of the wrong type for `property`, per the catalog. */
const wrongTypes = (property: PropertySpec): ReadonlyArray<unknown> => {
  switch (property.type) {
    case "number":
      return ["1", true, {}]
    case "boolean":
      return ["yes", 1]
    case "options":
      return ["not-an-option", 42]
    case "fixed_collection":
      return ["x", {}, ["row"]]
    case "json":
      return ["x", [], 1]
    case "tool_refs":
    case "document_refs":
      return ["x", [1]]
    default:
      return [42, true, ["abc"]]
  }
}

/** Values of the right type the catalog's bounds, options or pattern exclude. */
const outOfBounds = (property: PropertySpec): ReadonlyArray<unknown> => {
  const out: Array<unknown> = []
  if (property.min_value !== null) out.push(property.min_value - 1)
  if (property.max_value !== null) out.push(property.max_value + 1)
  if (property.type === "number" && property.renderer_options?.number_input?.fractional === false) out.push((property.min_value ?? 0) + 0.5)
  if (property.pattern !== null) out.push("has space")
  if (property.max_length !== null) out.push("a".repeat(property.max_length + 1))
  if (property.min_length !== null && property.min_length > 0) out.push("", "   ")
  return out
}

const requiredOnly = (properties: ReadonlyArray<PropertySpec>): Data =>
  Object.fromEntries(properties.filter((p) => p.required).map((p) => [p.name, validValue(p)]))

/** The issue fields of a value refused at `name`: the property itself, or an item inside it (`custom_headers.0`). */
const at = (name: string) => (fields: ReadonlyArray<string | null>) =>
  fields.length === 1 && (fields[0] === name || (fields[0] ?? "").startsWith(`${name}.`))

const without = (data: Data, key: string): Data => Object.fromEntries(Object.entries(data).filter(([k]) => k !== key))

describe("the node-type catalog", () => {
  it("lists every node type the validator accepts, and the validator refuses any other", () => {
    expect(NODE_TYPE_SPECS.map((s) => s.name)).toEqual([...NODE_TYPES])
    expect(nodeIssues("robot" as NodeType, { name: "x" })).toEqual(["type"])
  })

  it("every node type and property is described for people, and names are unique", () => {
    for (const spec of NODE_TYPE_SPECS) {
      expect(spec.description.length, spec.name).toBeGreaterThan(20)
      expect(spec.llm_hint?.length ?? 0, spec.name).toBeGreaterThan(20)
      const walk = (properties: ReadonlyArray<PropertySpec>, at: string) => {
        expect(new Set(properties.map((p) => p.name)).size, at).toBe(properties.length)
        for (const p of properties) {
          expect(p.description.trim(), `${at}.${p.name}`).not.toBe("")
          expect(p.display_name.trim(), `${at}.${p.name}`).not.toBe("")
          if (p.type === "options") expect(p.options?.length ?? 0, `${at}.${p.name}`).toBeGreaterThan(1)
          if (p.type === "fixed_collection") walk(p.properties ?? [], `${at}.${p.name}`)
          for (const field of Object.keys({ ...p.display_options?.show, ...p.display_options?.hide })) {
            expect(properties.map((q) => q.name), `${at}.${p.name} display_options`).toContain(field)
          }
        }
      }
      walk(spec.properties, spec.name)
    }
  })

  for (const type of NODE_TYPES) {
    describe(type, () => {
      const spec = specOf(type)
      const minimal = requiredOnly(spec.properties)

      it("its required properties alone are accepted; each is refused when absent", () => {
        expect(nodeIssues(type, minimal)).toEqual([])
        for (const property of spec.properties.filter((p) => p.required)) {
          expect(nodeIssues(type, without(minimal, property.name)), property.name).toEqual([property.name])
        }
      })

      it("each optional property is accepted absent, with a valid value, and (unless a boolean) null", () => {
        for (const property of spec.properties.filter((p) => !p.required)) {
          expect(nodeIssues(type, { ...minimal, [property.name]: validValue(property) }), property.name).toEqual([])
          if (property.type !== "boolean") expect(nodeIssues(type, { ...minimal, [property.name]: null }), property.name).toEqual([])
        }
      })

      it("types, options, bounds and patterns are enforced on every property", () => {
        for (const property of spec.properties) {
          for (const value of [...wrongTypes(property), ...outOfBounds(property)]) {
            const fields = nodeIssues(type, { ...minimal, [property.name]: value })
            expect(at(property.name)(fields), `${property.name} = ${JSON.stringify(value)}: ${JSON.stringify(fields)}`).toBe(true)
          }
          for (const option of property.options ?? []) {
            expect(nodeIssues(type, { ...minimal, [property.name]: option.value }), `${property.name} = ${option.value}`).toEqual([])
          }
        }
      })

      it("rows of a fixed collection are checked column by column, as the catalog states them", () => {
        for (const property of spec.properties.filter((p) => p.type === "fixed_collection")) {
          const columns = property.properties!
          const row = requiredOnly(columns)
          for (const column of columns) {
            const at = `${property.name}.0.${column.name}`
            if (column.required) expect(nodeIssues(type, { ...minimal, [property.name]: [without(row, column.name)] }), at).toEqual([at])
            else expect(nodeIssues(type, { ...minimal, [property.name]: [{ ...row, [column.name]: validValue(column) }] }), at).toEqual([])
            for (const value of [...wrongTypes(column), ...outOfBounds(column)]) {
              expect(nodeIssues(type, { ...minimal, [property.name]: [{ ...row, [column.name]: value }] }), `${at} = ${JSON.stringify(value)}`)
                .toEqual([at])
            }
          }
        }
      })

      it("its defaults and its examples are accepted", () => {
        const defaults = Object.fromEntries(spec.properties.filter((p) => p.default !== null).map((p) => [p.name, p.default]))
        expect(nodeIssues(type, { ...minimal, ...defaults })).toEqual([])
        expect(spec.examples.length).toBeGreaterThan(0)
        for (const example of spec.examples) expect(nodeIssues(type, example.data), example.name).toEqual([])
      })

      it("keys the catalog does not name are kept, not refused", () => {
        const { definition, errors } = validateDefinition({
          nodes: [{ id: "n", type, data: { ...minimal, editor_state: { open: true } } }, ...(type === "startCall" ? [] : [{
            id: "start",
            type: "startCall",
            data: { name: "S", prompt: "p" }
          }])],
          edges: []
        })
        expect(errors).toEqual([])
        expect(definition.nodes[0]!.data).toHaveProperty("editor_state", { open: true })
      })

      it("its graph constraints are the ones a save applies", () => {
        const c = spec.graph_constraints!
        const data = (t: NodeType) => requiredOnly(specOf(t).properties)
        const start = { id: "start", type: "startCall", data: data("startCall") }
        const nodes = (count: number) => [
          ...(type === "startCall" ? [] : [start]),
          ...Array.from({ length: count }, (_, i) => ({ id: `n${i}`, type, data: data(type) }))
        ]
        const workflowIssues = (count: number) => validateDefinition({ nodes: nodes(count), edges: [] }).errors.filter((e) => e.kind === "workflow")
        if (c.min_instances !== null && c.min_instances > 0) expect(workflowIssues(c.min_instances - 1)).toHaveLength(1)
        if (c.max_instances !== null) {
          expect(workflowIssues(c.max_instances)).toEqual([])
          expect(workflowIssues(c.max_instances + 1)).toHaveLength(1)
        } else expect(workflowIssues(3)).toEqual([])

        // An edge into and out of one node of the type, from and to an agent node (which takes any).
        const agent = { id: "a", type: "agentNode", data: data("agentNode") }
        const edgeIssues = (source: string, target: string) =>
          validateDefinition({
            nodes: [...nodes(1), agent],
            edges: [{ id: "e", source, target, data: { label: "go", condition: "c" } }]
          }).errors.filter((e) => e.kind === "edge").map((e) => e.field)
        expect(edgeIssues("a", "n0"), "incoming").toEqual(c.max_incoming === 0 ? ["target"] : [])
        expect(edgeIssues("n0", "a"), "outgoing").toEqual(c.max_outgoing === 0 ? ["source"] : [])
        expect([c.min_incoming, c.min_outgoing].filter((n) => n !== null && n > 0), "lower edge bounds are stated only if enforced").toEqual([])
      })

      it.prop("any data made of values the catalog allows is accepted; one value of a wrong type is refused on its field", [
        fc.record(Object.fromEntries(spec.properties.map((p) => [p.name, arbitraryValid(p)])), {
          requiredKeys: spec.properties.filter((p) => p.required).map((p) => p.name)
        }),
        fc.constantFrom(...spec.properties),
        fc.nat()
      ], ([data, property, pick]) => {
        expect(nodeIssues(type, data)).toEqual([])
        const wrong = wrongTypes(property)
        expect(at(property.name)(nodeIssues(type, { ...data, [property.name]: wrong[pick % wrong.length] }))).toBe(true)
      }, { fastCheck: { numRuns: 50 } })
    })
  }
})

/** Any value the catalog says `property` accepts. */
const arbitraryValid = (property: PropertySpec): fc.Arbitrary<unknown> => {
  switch (property.type) {
    case "number": {
      const min = property.min_value ?? 0
      const max = property.max_value ?? 1e6
      return property.renderer_options?.number_input?.fractional === true
        ? fc.double({ min, max, noNaN: true })
        : fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    }
    case "boolean":
      return fc.boolean()
    case "options":
      return fc.constantFrom(...property.options!.map((o) => o.value))
    case "fixed_collection": {
      const columns = property.properties!
      return fc.array(
        fc.record(Object.fromEntries(columns.map((c) => [c.name, arbitraryValid(c)])), { requiredKeys: columns.filter((c) => c.required).map((c) => c.name) }),
        { maxLength: 3 }
      )
    }
    case "json":
      return fc.constant({})
    case "tool_refs":
    case "document_refs":
      return fc.array(fc.uuid(), { maxLength: 3 })
    default: {
      if (property.pattern !== null) return fc.stringMatching(new RegExp(property.pattern))
      const text = fc.string({ maxLength: 20 })
      return property.min_length !== null && property.min_length > 0 ? text.filter((s) => s.trim().length >= property.min_length!) : text
    }
  }
}
