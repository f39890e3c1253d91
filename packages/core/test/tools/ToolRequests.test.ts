/**
 * The pure parts of tools: parameters as JSON Schemas and the check of a model's arguments, a
 * definition's checks, the request rendered from its template and a call's values, and what the model
 * is given (always JSON, never longer than the limit).
 */
import type { HttpApiConfig, ToolDefinition } from "@agentline/api/tools/Tools"
import { TOOL_RESULT_MAX_CHARS } from "@agentline/api/tools/Tools"
import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { checkArguments, parametersSchema, schemaProblems } from "../../src/tools/ParameterSchemas.js"
import { definitionIssues } from "../../src/tools/ToolChecks.js"
import { functionName, mcpFunctionName } from "../../src/tools/ToolCalls.js"
import { EMPTY_CONTEXT, presetValues, renderRequest, urlTemplateProblem } from "../../src/tools/ToolRequests.js"
import { errorResult, resultText, successResult, toolUsage } from "../../src/tools/ToolResults.js"

const http = (config: Partial<HttpApiConfig>): ToolDefinition => ({
  schema_version: 1,
  type: "http_api",
  config: { method: "GET", url: "https://api.example.com/x", ...config }
})

const locs = (definition: ToolDefinition, allowPrivate = false) => definitionIssues(definition, allowPrivate).map((i) => i.loc.join("."))

describe("parameters", () => {
  it("the reference's list is offered as a JSON Schema of an object; none is an object without properties", () => {
    expect(parametersSchema([
      { name: "order_id", type: "string", description: "The id", required: true },
      { name: "notes", type: "array", description: "", required: false }
    ])).toEqual({
      type: "object",
      properties: { order_id: { type: "string", description: "The id" }, notes: { type: "array" } },
      required: ["order_id"],
      additionalProperties: false
    })
    expect(parametersSchema(null)).toEqual({ type: "object", properties: {}, required: [], additionalProperties: false })
  })

  it("a schema an organization writes: a JSON Schema, of an object, with usable names, resolvable references", () => {
    expect(schemaProblems({ type: "object", properties: { a: { type: "string", enum: ["x"] } }, required: ["a"] })).toEqual([])
    expect(schemaProblems({ type: "array" }).map((p) => p.message)).toEqual(["parameters must be the JSON Schema of an object: \"type\": \"object\""])
    expect(schemaProblems({ type: "object", properties: { "two words": {}, initial_context: {} } }).map((p) => p.path)).toEqual([
      ["properties", "two words"],
      ["properties", "initial_context"]
    ])
    expect(schemaProblems({ type: "object", properties: { a: { $ref: "https://elsewhere.example/s.json" } } })[0]?.message)
      .toContain("parameters cannot be used")
    expect(schemaProblems({ type: "object", properties: { a: { type: 7 } } })[0]?.message).toContain("parameters is not a JSON Schema")
  })

  it("arguments: scalars coerced, defaults filled, every problem worded for the model; the input is not changed", () => {
    const schema = {
      type: "object",
      properties: { day: { type: "string", enum: ["mon", "tue"] }, seats: { type: "integer" }, vip: { type: "boolean", default: false } },
      required: ["day", "seats"],
      additionalProperties: false
    }
    const args = { day: "mon", seats: "2" }
    expect(checkArguments(schema, args)).toEqual(Either.right({ day: "mon", seats: 2, vip: false }))
    expect(args).toEqual({ day: "mon", seats: "2" })
    expect(checkArguments(schema, { day: "sun", extra: 1 })).toEqual(Either.left([
      "seats is required",
      "extra is not a parameter",
      "day must be equal to one of the allowed values"
    ]))
    expect(checkArguments(schema, [1])).toEqual(Either.left(["the arguments must be an object"]))
    expect(checkArguments({ type: "object" }, undefined)).toEqual(Either.right({}))
  })
})

describe("a definition's checks", () => {
  it("placeholders must name a parameter, a preset or the call's context", () => {
    expect(locs(http({
      url: "https://api.example.com/orders/{{order_id}}?by={{initial_context.agent}}",
      parameters: [{ name: "order_id", type: "string", description: "", required: true }],
      preset_parameters: [{ name: "caller", type: "string", value_template: "{{initial_context.phone_number}}", required: true }],
      headers: { "X-Caller": "{{caller}}", "X-Who": "{{gathered_context.name}}" }
    }))).toEqual([])
    expect(locs(http({
      method: "POST",
      url: "https://api.example.com/orders/{{id}}",
      preset_parameters: [{ name: "when", type: "string", value_template: "{{order_id}}", required: true }],
      body_template: { nested: ["{{missing}}"] }
    }))).toEqual([
      "definition.config.preset_parameters.0.value_template",
      "definition.config.url",
      "definition.config.body_template"
    ])
  })

  it("the URL: http(s), no templated host, no user info; private hosts only when the operator allows them", () => {
    expect(Either.isRight(urlTemplateProblem("https://api.example.com/{{a}}/b?c={{d}}"))).toBe(true)
    expect(urlTemplateProblem("https://{{tenant}}.example.com/x")).toEqual(Either.left(
      "url placeholders may stand in the path and query only: the scheme, host and port are fixed"
    ))
    expect(urlTemplateProblem("{{base}}/x")).toEqual(Either.left("url must be an absolute http or https URL"))
    expect(urlTemplateProblem("ftp://files.example.com/x")).toEqual(Either.left("url must be an http or https URL"))
    expect(urlTemplateProblem("https://me:pw@api.example.com/x")).toEqual(Either.left("url must not carry a user or password; use a credential"))
    for (const url of ["http://127.0.0.1:8080/x", "http://localhost/x", "http://169.254.169.254/latest", "http://[::1]/x", "http://10.1.2.3/x"]) {
      expect(locs(http({ url })), url).toEqual(["definition.config.url"])
      expect(locs(http({ url }), true), url).toEqual([])
    }
  })

  it("headers, body for GET, parameter names, an audio waiting message without its recording", () => {
    expect(locs(http({
      headers: { "Two words": "x", "X-Ok": "a\r\nInjected: 1" },
      body_template: { a: 1 },
      parameters: [
        { name: "1st", type: "string", description: "", required: true },
        { name: "a", type: "string", description: "", required: true },
        { name: "a", type: "number", description: "", required: true }
      ],
      customMessageType: "audio"
    }))).toEqual([
      "definition.config.parameters.0.name",
      "definition.config.parameters.2.name",
      "definition.config.headers.Two words",
      "definition.config.headers.X-Ok",
      "definition.config.body_template",
      "definition.config.customMessageRecordingId"
    ])
  })

  it("an MCP server: its URL under the same rule; filter names neither empty nor repeated", () => {
    const mcp = (url: string, tools_filter: ReadonlyArray<string>): ToolDefinition => ({
      schema_version: 1,
      type: "mcp",
      config: { transport: "streamable_http", url, tools_filter, discovered_tools: [] }
    })
    expect(locs(mcp("https://mcp.example.com/mcp", ["a", "b"]))).toEqual([])
    expect(locs(mcp("http://127.0.0.1:3000/mcp", ["a", "", "a"]))).toEqual([
      "definition.config.url",
      "definition.config.tools_filter.1",
      "definition.config.tools_filter.2"
    ])
  })
})

describe("rendering a request", () => {
  const context = { initial_context: { phone_number: "+14155550100", account: { id: 7 } }, gathered_context: { name: "Ada" } }

  it("GET: URL placeholders percent-encoded, the other values as the query, nothing in a body", () => {
    const rendered = renderRequest({
      method: "GET",
      url: "https://api.example.com/accounts/{{initial_context.account.id}}/orders/{{order_id}}",
      headers: { "X-Name": "{{gathered_context.name}}" }
    }, { order_id: "a/b c?", limit: 5, tags: ["x", "y"] }, context)
    expect(rendered).toEqual(Either.right({
      method: "GET",
      url: "https://api.example.com/accounts/7/orders/a%2Fb%20c%3F?limit=5&tags=%5B%22x%22%2C%22y%22%5D",
      headers: { "X-Name": "Ada" },
      body: null,
      query: { limit: 5, tags: ["x", "y"] }
    }))
  })

  it("POST: the body template with typed placeholders, or every value as one object; a header cannot gain a line", () => {
    expect(renderRequest({
      method: "POST",
      url: "https://api.example.com/book",
      body_template: { seats: "{{seats}}", who: "{{gathered_context.name}} ({{initial_context.phone_number}})", meta: { account: "{{initial_context.account}}" } }
    }, { seats: 3 }, context)).toEqual(Either.right({
      method: "POST",
      url: "https://api.example.com/book",
      headers: { "content-type": "application/json" },
      body: { seats: 3, who: "Ada (+14155550100)", meta: { account: { id: 7 } } },
      query: null
    }))
    expect(Either.getOrThrow(renderRequest({ method: "PUT", url: "https://api.example.com/x" }, { a: 1, b: "two" }, EMPTY_CONTEXT)).body)
      .toEqual({ a: 1, b: "two" })
    expect(renderRequest({ method: "GET", url: "https://api.example.com/x", headers: { "X-Note": "{{note}}" } }, { note: "a\r\nX-Admin: 1" }, EMPTY_CONTEXT))
      .toEqual(Either.left("header X-Note would contain a line break or control character"))
  })

  it("presets: the test's values first, else the call's context (typed), every required one without a value reported", () => {
    const presets = [
      { name: "phone", type: "string" as const, value_template: "{{initial_context.phone_number}}", required: true },
      { name: "account", type: "number" as const, value_template: "{{initial_context.account.id}}", required: true },
      { name: "vip", type: "boolean" as const, value_template: "{{gathered_context.vip}}", required: false },
      { name: "channel", type: "string" as const, value_template: "phone", required: true }
    ]
    expect(presetValues(presets, context)).toEqual(Either.right({ phone: "+14155550100", account: 7, channel: "phone" }))
    expect(presetValues(presets, context, { account: "12", vip: "true" })).toEqual(Either.right({ phone: "+14155550100", account: 12, vip: true, channel: "phone" }))
    expect(presetValues(presets, EMPTY_CONTEXT, { vip: "maybe" })).toEqual(Either.left([
      "preset parameter phone has no value ({{initial_context.phone_number}} is not set for this call)",
      "preset parameter account has no value ({{initial_context.account.id}} is not set for this call)",
      "preset parameter vip: 'maybe' is not true or false"
    ]))
  })

  it("a path value of '.' or '..' is refused: the URL would name another path", () => {
    for (const a of [".", ".."]) {
      expect(renderRequest({ method: "GET", url: "https://api.example.com/items/{{a}}/x" }, { a }, EMPTY_CONTEXT)).toEqual(
        Either.left("a value in the url's path would make a segment '.' or '..', which a URL cannot carry as a value")
      )
    }
    // A value that only looks encoded is encoded again and arrives as sent; in the query, dots are values like any other.
    expect(Either.map(renderRequest({ method: "GET", url: "https://api.example.com/items/{{a}}" }, { a: "%2e%2e" }, EMPTY_CONTEXT), (r) => r.url)).toEqual(
      Either.right("https://api.example.com/items/%252e%252e")
    )
    expect(Either.isRight(renderRequest({ method: "GET", url: "https://api.example.com/items?q={{a}}" }, { a: ".." }, EMPTY_CONTEXT))).toBe(true)
  })

  it.prop("any other value in a URL placeholder arrives as sent", [FastCheck.fullUnicodeString().filter((a) => a !== "." && a !== ".."), FastCheck.fullUnicodeString()], ([a, b]) => {
    const rendered = Either.getOrThrow(renderRequest({ method: "GET", url: "https://api.example.com/items/{{a}}" }, { a, b }, EMPTY_CONTEXT))
    const url = new URL(rendered.url)
    expect(decodeURIComponent(url.pathname.slice("/items/".length))).toBe(a)
    expect(url.searchParams.get("b")).toBe(b)
    expect(url.host).toBe("api.example.com")
  })
})

describe("what the model is given", () => {
  it("an answer with its status, an error in words, both as JSON", () => {
    expect(successResult(200, { ok: true })).toEqual({ text: "{\"status\":200,\"data\":{\"ok\":true}}", truncated: false })
    expect(errorResult("the tool answered with HTTP status 503", 503, "down")).toEqual({
      text: "{\"error\":\"the tool answered with HTTP status 503\",\"status\":503,\"data\":\"down\"}",
      truncated: false
    })
    expect(JSON.parse(errorResult("the tool did not answer within 5 seconds").text)).toEqual({ error: "the tool did not answer within 5 seconds" })
  })

  it.prop(
    "never longer than the limit, always JSON, cut only when longer",
    [FastCheck.jsonValue(), FastCheck.integer({ min: 150, max: 400 })],
    ([data, limit]) => {
      const given = resultText({ status: 200, data }, limit)
      expect(given.text.length).toBeLessThanOrEqual(limit)
      const parsed = JSON.parse(given.text)
      if (JSON.stringify({ status: 200, data }).length <= limit) {
        expect(given.truncated).toBe(false)
        expect(parsed).toEqual(JSON.parse(JSON.stringify({ status: 200, data })))
      } else {
        expect(given.truncated).toBe(true)
        expect(typeof parsed.data).toBe("string")
        const whole = typeof data === "string" ? data : JSON.stringify(data)
        expect(whole.startsWith(parsed.data)).toBe(true)
      }
    }
  )

  it("the default limit is TOOL_RESULT_MAX_CHARS, escapes included", () => {
    const given = successResult(200, "\"\\\n".repeat(10_000))
    expect(given.truncated).toBe(true)
    expect(given.text.length).toBeLessThanOrEqual(TOOL_RESULT_MAX_CHARS)
    expect(given.text.length).toBeGreaterThan(TOOL_RESULT_MAX_CHARS - 10)
  })

  it("function names as models accept them; usage adds calls up", () => {
    expect(functionName("Book an appointment!")).toBe("book_an_appointment_")
    expect(functionName("x".repeat(100))).toHaveLength(64)
    expect(mcpFunctionName("crm.lookup-customer")).toBe("crm_lookup-customer")
    const record = { latency_ms: 120, response_bytes: 300, status: "success" } as const
    expect(toolUsage([
      { ...base, ...record },
      { ...base, ...record, status: "error", latency_ms: 5000, response_bytes: 0 }
    ])).toEqual({ calls: 2, failed: 1, latency_ms: 5120, response_bytes: 300 })
  })
})

const base = {
  tool_uuid: "t",
  tool_name: "T",
  function_name: "t",
  category: "http_api" as const,
  mcp_tool_name: null,
  arguments: {},
  started_at: "2026-01-01T00:00:00.000Z",
  status_code: null,
  result_chars: 0,
  result_truncated: false,
  error: null,
  error_kind: null
}
