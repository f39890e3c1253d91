import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { definitionVariables, renderTemplate, SYSTEM_VARIABLES, templateVariables } from "../../src/workflows/Template.js"

const context = {
  name: "Ann",
  empty: "",
  nothing: null,
  zero: 0,
  no: false,
  price: 12.5,
  big: 10n,
  list: [1, "two"],
  obj: { a: 1, b: [true] },
  when: new Date(Date.UTC(2026, 0, 2, 3, 4, 5)),
  gathered_context: { city: "Paris", address: { zip: "75001" }, empty: "" },
  "legacy.column": "dotted key",
  injected: "{{name}}"
}

describe("renderTemplate", () => {
  const table: ReadonlyArray<readonly [string, string, string]> = [
    // placeholders and spacing
    ["plain", "Hello {{name}}", "Hello Ann"],
    ["spaces inside", "Hello {{ name }}!", "Hello Ann!"],
    ["more spaces", "{{   name   }}", "Ann"],
    ["newlines and tabs inside", "{{\n\tname\n}}", "Ann"],
    ["several", "{{name}} paid {{price}}", "Ann paid 12.5"],
    ["repeated", "{{name}}/{{ name }}", "Ann/Ann"],
    // defaults
    ["default when missing", "Hi {{first_name | there}}", "Hi there"],
    ["default with inner spaces kept", "Hi {{ first_name |  dear customer  }}!", "Hi dear customer!"],
    ["default when empty string", "Hi {{empty | friend}}", "Hi friend"],
    ["default when null", "Hi {{nothing | friend}}", "Hi friend"],
    ["default ignored when present", "Hi {{name | friend}}", "Hi Ann"],
    ["default may contain a colon", "at {{time | 10:30}}", "at 10:30"],
    ["empty default", "[{{missing|}}]", "[]"],
    ["default without spaces", "{{missing|x}}", "x"],
    // legacy fallback syntax
    ["legacy fallback", "Hi {{first_name | fallback:there}}", "Hi there"],
    ["legacy fallback with spaces", "Hi {{ first_name | fallback: Sir }}", "Hi Sir"],
    ["legacy fallback ignored when present", "Hi {{name|fallback:Sir}}", "Hi Ann"],
    // dotted paths
    ["dotted path", "{{gathered_context.city}}", "Paris"],
    ["deeper path", "{{gathered_context.address.zip}}", "75001"],
    ["missing leaf", "[{{gathered_context.country}}]", "[]"],
    ["missing leaf with default", "{{gathered_context.country | France}}", "France"],
    ["empty leaf with default", "{{gathered_context.empty | n/a}}", "n/a"],
    ["missing root", "[{{initial_context.x}}]", "[]"],
    ["path through a non-object", "[{{name.length}}]", "[]"],
    ["path into an array", "{{list.1}}", "two"],
    ["flat key with a dot", "{{legacy.column}}", "dotted key"],
    // missing variables
    ["missing renders empty", "Hi {{first_name}}!", "Hi !"],
    ["inherited properties are not variables", "[{{constructor}}][{{toString}}][{{obj.hasOwnProperty}}]", "[][][]"],
    // braces that are not placeholders
    ["triple braces", "{{{name}}}", "{Ann}"],
    ["adjacent placeholders", "{{name}}{{price}}", "Ann12.5"],
    ["separated braces", "{ {name} }", "{ {name} }"],
    ["single braces", "{name}", "{name}"],
    ["unclosed", "Hello {{name", "Hello {{name"],
    ["unopened", "Hello name}}", "Hello name}}"],
    ["empty placeholder", "{{}} and {{ }}", "{{}} and {{ }}"],
    ["two words", "{{first name}}", "{{first name}}"],
    ["nested braces", "{{na{{name}}me}}", "{{naAnnme}}"],
    // non-string values
    ["zero is a value", "{{zero | none}}", "0"],
    ["false is a value", "{{no | none}}", "false"],
    ["decimal", "{{price}}", "12.5"],
    ["bigint", "{{big}}", "10"],
    ["array as JSON", "{{list}}", "[1,\"two\"]"],
    ["object as JSON", "{{obj}}", "{\"a\":1,\"b\":[true]}"],
    ["date as ISO time", "{{when}}", "2026-01-02T03:04:05.000Z"],
    // one pass only
    ["values are not expanded again", "{{injected}}", "{{name}}"]
  ]
  for (const [title, template, expected] of table) {
    it(`${title}: ${JSON.stringify(template)} → ${JSON.stringify(expected)}`, () => {
      expect(renderTemplate(template, context)).toBe(expected)
    })
  }

  it("an object that cannot be JSON still renders", () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(renderTemplate("{{c}}", { c: cyclic })).toBe("[object Object]")
    expect(renderTemplate("{{c}}", { c: { n: 1n } })).toBe("[object Object]")
  })
})

describe("templateVariables", () => {
  it("lists every placeholder in order, with its default flag and path", () => {
    expect(templateVariables("Hi {{ first_name }}, {{city | Paris}} {{gathered_context.x}} {{a|fallback:b}} {{first_name}} {{ bad name }}")).toEqual([
      { name: "first_name", hasDefault: false, path: ["first_name"] },
      { name: "city", hasDefault: true, path: ["city"] },
      { name: "gathered_context.x", hasDefault: false, path: ["gathered_context", "x"] },
      { name: "a", hasDefault: true, path: ["a"] },
      { name: "first_name", hasDefault: false, path: ["first_name"] }
    ])
  })

  it("a template without placeholders has none", () => {
    expect(templateVariables("Hello {name} {{ }}")).toEqual([])
  })
})

describe("definitionVariables", () => {
  const definition = {
    nodes: [
      {
        id: "s",
        type: "startCall",
        data: {
          name: "Start",
          prompt: "Greet {{first_name}} from {{company}}; campaign {{campaign_id}}, caller {{caller_number}}",
          greeting: "Hello {{title | there}} {{last_name}} on {{phone_number}}"
        }
      },
      { id: "a", type: "agentNode", data: { name: "A", prompt: "Ask about {{topic}} in {{gathered_context.city}}; {{company | us}}" } },
      { id: "e", type: "endCall", data: { name: "E", prompt: "Bye {{first_name}}, {{closing_line}}", greeting: "{{end_greeting_is_ignored}}" } },
      { id: "g", type: "globalNode", data: { name: "G", prompt: "You work for {{brand}}. {{provider}} {{source_uuid}} {{called_number}}" } },
      { id: "t", type: "trigger", data: { name: "T", prompt: "{{trigger_prompt_ignored}}" } },
      { id: "w", type: "webhook", data: { name: "W", payload_template: { x: "{{webhook_var_ignored}}" }, prompt: "{{webhook_ignored}}" } }
    ],
    edges: [
      { id: "e1", source: "s", target: "a", data: { label: "l", condition: "{{condition_ignored}}", transition_speech: "One moment {{first_name}}, {{agent_name}}" } },
      { id: "e2", source: "a", target: "e", data: { label: "m", condition: "c", transition_speech: "{{speech_default | ok}}" } }
    ]
  }

  it("collects prompts, the start greeting and transition speech; drops defaulted, dotted and system variables; sorted and unique", () => {
    expect(definitionVariables(definition)).toEqual(["agent_name", "brand", "closing_line", "company", "first_name", "last_name", "topic"])
  })

  it("a variable used once without a default is required even if defaulted elsewhere", () => {
    expect(definitionVariables(definition)).toContain("company")
  })

  it("system variables are the six the call itself provides", () => {
    expect([...SYSTEM_VARIABLES].sort()).toEqual(["called_number", "caller_number", "campaign_id", "phone_number", "provider", "source_uuid"])
  })

  it("tolerates anything that is not shaped like a definition", () => {
    for (const input of [null, undefined, 3, "x", [], { nodes: "x" }, { nodes: [null, { type: "startCall" }, { type: "agentNode", data: { prompt: 4 } }], edges: [1, { data: null }] }]) {
      expect(definitionVariables(input)).toEqual([])
    }
  })
})

describe("properties", () => {
  const braceHeavy = FastCheck.string({ unit: FastCheck.constantFrom("{", "}", "|", " ", "a", ".", ":", "\n") })

  it.prop(
    "a template without {{ renders unchanged whatever the context",
    [FastCheck.oneof(FastCheck.string(), braceHeavy, FastCheck.fullUnicodeString()).filter((s) => !s.includes("{{"))],
    ([template]) => {
      expect(renderTemplate(template, context)).toBe(template)
      expect(renderTemplate(template, {})).toBe(template)
      expect(templateVariables(template)).toEqual([])
    }
  )

  const identifier = FastCheck.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,10}$/)
  const literal = FastCheck.string({ unit: FastCheck.constantFrom("a", "B", " ", ".", ",", "!", "\n", "é", "|", ":") })
  const value = FastCheck.string({ unit: FastCheck.constantFrom("x", "Y", "7", " ", "-", "ü"), minLength: 1 })
  /** A placeholder: its own root variable, an optional sub-path, optional spacing and default. */
  const placeholder = FastCheck.record({
    sub: FastCheck.array(identifier, { maxLength: 2 }),
    value,
    padLeft: FastCheck.constantFrom("", " ", "  "),
    padRight: FastCheck.constantFrom("", " ", "\t"),
    fallback: FastCheck.option(literal.filter((s) => !s.includes("{") && !s.includes("}")), { nil: undefined })
  })
  const pieces = FastCheck.uniqueArray(FastCheck.tuple(identifier, literal, placeholder), { selector: ([root]) => root, maxLength: 6 })

  it.prop("every variable templateVariables lists is replaced by its value when the context has it", [pieces], ([parts]) => {
    let template = ""
    let expected = ""
    const context: Record<string, unknown> = {}
    for (const [root, text, p] of parts) {
      const path = [root, ...p.sub]
      template += `${text}{{${p.padLeft}${path.join(".")}${p.padRight}${p.fallback === undefined ? "" : `|${p.fallback}`}}}`
      expected += `${text}${p.value}`
      // defineProperty, so a generated `__proto__` is a key like any other.
      Object.defineProperty(context, root, {
        value: p.sub.reduceRight<unknown>((inner, key) => ({ [key]: inner }), p.value),
        enumerable: true
      })
    }
    const listed = templateVariables(template)
    expect(listed.map((v) => v.path)).toEqual(parts.map(([root, , p]) => [root, ...p.sub]))
    expect(listed.map((v) => v.hasDefault)).toEqual(parts.map(([, , p]) => p.fallback !== undefined))
    expect(renderTemplate(template, context)).toBe(expected)
  })

  it.prop("without a context every placeholder renders as its default, or as nothing", [pieces], ([parts]) => {
    let template = ""
    let expected = ""
    for (const [root, text, p] of parts) {
      template += `${text}{{ ${[root, ...p.sub].join(".")} ${p.fallback === undefined ? "" : `| fallback:${p.fallback}`}}}`
      expected += `${text}${p.fallback?.trim() ?? ""}`
    }
    expect(renderTemplate(template, {})).toBe(expected)
  })
})
