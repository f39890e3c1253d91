/**
 * The Tools page's form (the request it makes, sample arguments for a test) and a step's tool choice
 * in the agent editor (`tool_uuids` and `mcp_tool_filters` as the checkboxes edit them).
 */
import { CreateToolRequest } from "@agentline/api/tools/Tools"
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { chosenMcpTools, listedTools, withMcpTool, withTool } from "../src/pages/agents/toolChoice.js"
import { emptyToolForm, sampleArguments, toolRequest } from "../src/pages/tools/toolForm.js"

describe("the new-tool form", () => {
  it("an HTTP tool: empty optional fields left out (the server's defaults), parameters from the rows, the waiting sentence as text", () => {
    const request = Either.getOrThrow(toolRequest({
      ...emptyToolForm,
      name: "Order status",
      url: " https://api.example.com/orders/{{order_id}} ",
      parameters: [
        { name: " order_id ", type: "string", description: "The id", required: "yes" },
        { name: "", type: "number", description: "ignored: no name", required: "no" }
      ],
      headers: [{ key: "X-Source", value: "agentline" }, { key: " ", value: "dropped" }],
      waitingMessage: "One moment."
    }))
    expect(request).toEqual({
      name: "Order status",
      definition: {
        type: "http_api",
        config: {
          method: "GET",
          url: "https://api.example.com/orders/{{order_id}}",
          headers: { "X-Source": "agentline" },
          parameters: [{ name: "order_id", type: "string", description: "The id", required: true }],
          customMessage: "One moment.",
          customMessageType: "text"
        }
      }
    })
    expect(Either.isRight(Schema.decodeUnknownEither(CreateToolRequest)(request))).toBe(true)
  })

  it("a JSON Schema and a body template are parsed; what does not parse is said before anything is sent", () => {
    const request = Either.getOrThrow(toolRequest({
      ...emptyToolForm,
      name: "Book",
      method: "POST",
      url: "https://api.example.com/book",
      parametersAs: "schema",
      schemaText: "{\"type\": \"object\", \"properties\": {\"seats\": {\"type\": \"integer\"}}}",
      bodyText: "{\"seats\": \"{{seats}}\"}",
      timeoutMs: "2500"
    }))
    expect(request.definition).toMatchObject({
      config: { parameters: { type: "object", properties: { seats: { type: "integer" } } }, body_template: { seats: "{{seats}}" }, timeout_ms: 2500 }
    })
    expect(toolRequest({ ...emptyToolForm, parametersAs: "schema", schemaText: "[1]", bodyText: "{oops" })).toEqual(Either.left([
      "The parameters' JSON Schema must be a JSON object",
      expect.stringContaining("The body template is not JSON")
    ]))
  })

  it("an MCP server: its URL, credential, the server tools it offers and its timeout", () => {
    expect(Either.getOrThrow(toolRequest({
      ...emptyToolForm,
      kind: "mcp",
      name: "Shop",
      url: "https://mcp.example.com/mcp",
      credentialUuid: "cred-1",
      toolsFilter: "lookup_order\n\n book_slot \n",
      timeoutSecs: "10"
    }))).toEqual({
      name: "Shop",
      definition: {
        type: "mcp",
        config: { url: "https://mcp.example.com/mcp", credential_uuid: "cred-1", tools_filter: ["lookup_order", "book_slot"], timeout_secs: 10 }
      }
    })
  })

  it("sample arguments: every property with a value of its type (its default or first allowed value when it has one)", () => {
    expect(JSON.parse(sampleArguments({
      type: "object",
      properties: {
        id: { type: "string" },
        n: { type: "integer" },
        flag: { type: "boolean", default: true },
        day: { type: "string", enum: ["mon", "tue"] },
        nested: { type: "object", properties: { list: { type: "array" } } }
      }
    }))).toEqual({ id: "", n: 0, flag: true, day: "mon", nested: { list: [] } })
    expect(sampleArguments(undefined)).toBe("{}")
  })
})

describe("a step's tools", () => {
  it("listing and unlisting a tool; an unlisted MCP tool takes its choice with it; nothing left removes the fields", () => {
    let data = withTool({ name: "Step" }, "a", true)
    data = withTool(data, "b", true)
    data = withTool(data, "a", true)
    expect(listedTools(data)).toEqual(["a", "b"])
    data = withMcpTool(data, "b", ["x", "y", "z"], "y", false)
    expect(data.mcp_tool_filters).toEqual({ b: ["x", "z"] })
    data = withTool(data, "b", false)
    expect(data).toEqual({ name: "Step", tool_uuids: ["a"] })
    expect(withTool(data, "a", false)).toEqual({ name: "Step" })
  })

  it("choosing an MCP tool's server tools: all chosen is no entry (the tool's own list applies)", () => {
    const data = { tool_uuids: ["m"] }
    expect(chosenMcpTools(data, "m")).toBeUndefined()
    const one = withMcpTool(data, "m", ["x", "y"], "x", false)
    expect(chosenMcpTools(one, "m")).toEqual(["y"])
    const none = withMcpTool(one, "m", ["x", "y"], "y", false)
    expect(chosenMcpTools(none, "m")).toEqual([])
    expect(withMcpTool(withMcpTool(none, "m", ["x", "y"], "x", true), "m", ["x", "y"], "y", true)).toEqual(data)
  })
})
