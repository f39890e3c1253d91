import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { definitionVariables, renderTemplate, templateVariables } from "../../src/workflows/Template.js"

describe("renderTemplate", () => {
  const context = { first_name: "Ada", empty: "", count: 3, ok: true, gathered_context: { city: "London" }, obj: { a: 1 } }
  it.each([
    ["Hello {{first_name}}", "Hello Ada"],
    ["Hello {{ first_name }}!", "Hello Ada!"],
    ["Hi {{missing}}.", "Hi ."],
    ["Hi {{missing | there}}.", "Hi there."],
    ["Hi {{empty | friend}}.", "Hi friend."],
    ["Hi {{missing | fallback:pal}}.", "Hi pal."],
    ["{{gathered_context.city}}", "London"],
    ["{{gathered_context.country | UK}}", "UK"],
    ["{{count}} and {{ok}}", "3 and true"],
    ["{{obj}}", "{\"a\":1}"],
    ["{{first_name}}{{first_name}}", "AdaAda"],
    ["{ {first_name} }", "{ {first_name} }"],
    ["no variables", "no variables"]
  ])("%s → %s", (template, expected) => {
    expect(renderTemplate(template, context)).toBe(expected)
  })

  it("a template without {{ is returned unchanged, and every listed variable is replaced (property)", () => {
    FastCheck.assert(FastCheck.property(FastCheck.string().filter((s) => !s.includes("{{")), (s) => {
      expect(renderTemplate(s, {})).toBe(s)
    }))
    FastCheck.assert(FastCheck.property(
      FastCheck.array(FastCheck.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { minLength: 1, maxLength: 5 }),
      (names) => {
        const template = names.map((n) => `<{{ ${n} }}>`).join(" ")
        const values = Object.fromEntries(names.map((n) => [n, `v_${n}`]))
        const rendered = renderTemplate(template, values)
        for (const v of templateVariables(template)) expect(rendered).toContain(`<v_${v.name}>`)
        expect(rendered).not.toContain("{{")
      }
    ))
  })
})

describe("templateVariables and definitionVariables", () => {
  it("lists variables with their defaults and paths", () => {
    expect(templateVariables("{{a}} {{ b | x }} {{c.d}}")).toEqual([
      { name: "a", hasDefault: false, path: ["a"] },
      { name: "b", hasDefault: true, path: ["b"] },
      { name: "c.d", hasDefault: false, path: ["c", "d"] }
    ])
  })

  it("a definition needs its prompts', greeting's and transition speech's variables, not defaulted, dotted or system ones", () => {
    const definition = {
      nodes: [
        { id: "s", type: "startCall", data: { name: "s", prompt: "Hi {{first_name}} from {{campaign_id}}", greeting: "Hello {{title | there}} {{last_name}}" } },
        { id: "a", type: "agentNode", data: { name: "a", prompt: "Ask about {{topic}} in {{gathered_context.city}}" } },
        { id: "w", type: "webhook", data: { name: "w", payload_template: "{{not_needed}}" } }
      ],
      edges: [{ id: "e", source: "s", target: "a", data: { label: "l", condition: "c", transition_speech: "One moment {{first_name}}, {{agent_name}}" } }]
    }
    expect(definitionVariables(definition)).toEqual(["agent_name", "first_name", "last_name", "topic"])
  })
})
