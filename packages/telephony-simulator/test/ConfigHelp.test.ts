/**
 * The simulator form's help texts (its provider metadata, shown under each field in the dashboard):
 * the Rules example is valid JSON that the simulator's own schema accepts as it is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { fields, RULES_EXAMPLE, SimulatorConfig } from "../src/Config.js"

describe("simulator configuration help", () => {
  it("the Rules field's example is valid JSON the configuration accepts", () => {
    const rules = fields.find((f) => f.name === "rules")
    expect(rules?.type).toBe("json")
    expect(rules?.description).toContain(RULES_EXAMPLE)
    const parsed: unknown = JSON.parse(RULES_EXAMPLE)
    const config = Schema.decodeUnknownSync(SimulatorConfig)({ rules: parsed })
    expect(config.rules).toEqual([{ match: "prefix", pattern: "+1415", outcomes: ["busy", "completed"] }])
  })

  it("every JSON-looking fragment of every description parses", () => {
    for (const field of fields) {
      for (const fragment of (field.description ?? "").match(/\[\{.*?\}\]/g) ?? []) {
        expect(() => JSON.parse(fragment), `${field.name}: ${fragment}`).not.toThrow()
      }
    }
  })
})
