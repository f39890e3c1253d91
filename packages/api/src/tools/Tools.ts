/**
 * Organization tools (the reference's `/api/v1/tools`, same paths and shapes): what an agent's
 * language model may call during a call. Two kinds:
 *
 * - `http_api`: an HTTP request template (method, URL, headers, a stored credential, a JSON body) with
 *   the parameters the model fills in, a timeout, and what to say while waiting;
 * - `mcp`: a Model Context Protocol server (Streamable HTTP) whose tools are listed by
 *   `POST /tools/{tool_uuid}/mcp/refresh`; agent nodes choose which of them the model sees.
 *
 * The reference's other categories (`end_call`, `transfer_call`, `calculator`, ...) are not tools here:
 * ending a call is built into every agent, and transfer is not available yet.
 */
import { Schema } from "effect"
import { lengthLimits } from "../Params.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const ToolCategory = Schema.Literal("http_api", "mcp").annotations({ identifier: "ToolCategory" })
export type ToolCategory = typeof ToolCategory.Type

/** `archived` tools stay listed and may be unarchived; agents cannot name them and calls skip them. */
export const ToolStatus = Schema.Literal("active", "archived").annotations({ identifier: "ToolStatus" })
export type ToolStatus = typeof ToolStatus.Type

export const ToolHttpMethod = Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE").annotations({ identifier: "ToolHttpMethod" })
export type ToolHttpMethod = typeof ToolHttpMethod.Type

export const ToolParameterType = Schema.Literal("string", "number", "boolean", "object", "array")
export type ToolParameterType = typeof ToolParameterType.Type

/** The longest a tool may wait for its answer (a caller is on the line meanwhile). */
export const MAX_TOOL_TIMEOUT_MS = 60_000
export const DEFAULT_TOOL_TIMEOUT_MS = 5_000
/** The longest an MCP tool call (connection, session set-up and the call) may take. */
export const MAX_MCP_TIMEOUT_SECS = 120
export const DEFAULT_MCP_TIMEOUT_SECS = 30

/** A parameter the model supplies when it calls the tool (the reference's list form of `parameters`). */
export const ToolParameter = Schema.Struct({
  name: Schema.String,
  type: ToolParameterType,
  description: Schema.String,
  required: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations({ identifier: "ToolParameter" })
export type ToolParameter = typeof ToolParameter.Type

/**
 * A parameter the server fills in: a fixed value or a template of the call's context
 * (`{{initial_context.phone_number}}`, `{{gathered_context.email}}`).
 */
export const PresetToolParameter = Schema.Struct({
  name: Schema.String,
  type: ToolParameterType,
  value_template: Schema.String,
  required: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations({ identifier: "PresetToolParameter" })
export type PresetToolParameter = typeof PresetToolParameter.Type

/**
 * The parameters the model supplies: the reference's list of `{name, type, description, required}`,
 * or a JSON Schema (draft-07) of an object, for what a list cannot say (enums, nested objects, item
 * types). Either way the model is offered a JSON Schema of an object, and its arguments are checked
 * against it before the request is made.
 */
export const ToolParameters = Schema.Union(Schema.Array(ToolParameter), JsonObject).annotations({
  identifier: "ToolParameters",
  description: "A list of ToolParameter, or a JSON Schema of an object ({\"type\": \"object\", \"properties\": {...}, \"required\": [...]})."
})

export const HttpApiConfig = Schema.Struct({
  method: ToolHttpMethod,
  /** `{{parameter}}` placeholders may stand in the path and query, not in the scheme or host. */
  url: Schema.String,
  /** Static headers; values may hold `{{parameter}}` placeholders. Secrets belong in a credential. */
  headers: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String }))),
  /** A stored credential (`/api/v1/credentials`) whose header every request carries. */
  credential_uuid: Schema.optional(Schema.NullOr(Schema.String)),
  parameters: Schema.optional(Schema.NullOr(ToolParameters)),
  preset_parameters: Schema.optional(Schema.NullOr(Schema.Array(PresetToolParameter))),
  /** How long the request may take (default 5000, at most 60000); past it the model is told the tool did not answer. */
  timeout_ms: Schema.optional(Schema.NullOr(Schema.Int.pipe(
    Schema.between(1, MAX_TOOL_TIMEOUT_MS, { message: () => `timeout_ms must be from 1 to ${MAX_TOOL_TIMEOUT_MS}` })
  ))),
  /** What the agent says while the tool runs (`customMessageType` `text`), or the recording it plays (`audio`). */
  customMessage: Schema.optional(Schema.NullOr(Schema.String)),
  customMessageType: Schema.optional(Schema.NullOr(Schema.Literal("text", "audio"))),
  customMessageRecordingId: Schema.optional(Schema.NullOr(Schema.String)),
  /**
   * The JSON body of POST, PUT and PATCH requests, with `{{parameter}}` placeholders anywhere in its
   * strings; a string that is one placeholder alone keeps the value's JSON type. Without it, the body
   * is every parameter as one flat object. GET and DELETE send parameters as the query instead.
   */
  body_template: Schema.optional(Schema.NullOr(JsonObject))
}).annotations({ identifier: "HttpApiConfig" })
export type HttpApiConfig = typeof HttpApiConfig.Type

/** A tool of an MCP server, as its `tools/list` answered (kept by `mcp/refresh`). */
export const DiscoveredMcpTool = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  input_schema: JsonObject
}).annotations({ identifier: "DiscoveredMcpTool" })
export type DiscoveredMcpTool = typeof DiscoveredMcpTool.Type

export const McpToolConfig = Schema.Struct({
  transport: Schema.optionalWith(Schema.Literal("streamable_http"), { default: () => "streamable_http" as const }),
  url: Schema.String,
  /** A stored credential whose header every request to the server carries. */
  credential_uuid: Schema.optional(Schema.NullOr(Schema.String)),
  /** The server's tools agents may use (by name); empty: all of them. */
  tools_filter: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** The longest one call may take: connecting, opening the session and the tool's answer. */
  timeout_secs: Schema.optional(Schema.Int.pipe(
    Schema.between(1, MAX_MCP_TIMEOUT_SECS, { message: () => `timeout_secs must be from 1 to ${MAX_MCP_TIMEOUT_SECS}` })
  )),
  /** Accepted for the reference's clients; answers are read within `timeout_secs` here. */
  sse_read_timeout_secs: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /** Server-managed: the server's catalog at the last refresh. Ignored when sent. */
  discovered_tools: Schema.optionalWith(Schema.Array(DiscoveredMcpTool), { default: () => [] })
}).annotations({ identifier: "McpToolConfig" })
export type McpToolConfig = typeof McpToolConfig.Type

const schemaVersion = Schema.optionalWith(Schema.Int, { default: () => 1 })

export const HttpApiToolDefinition = Schema.Struct({
  schema_version: schemaVersion,
  type: Schema.Literal("http_api"),
  config: HttpApiConfig
}).annotations({ identifier: "HttpApiToolDefinition" })
export type HttpApiToolDefinition = typeof HttpApiToolDefinition.Type

export const McpToolDefinition = Schema.Struct({
  schema_version: schemaVersion,
  type: Schema.Literal("mcp"),
  config: McpToolConfig
}).annotations({ identifier: "McpToolDefinition" })
export type McpToolDefinition = typeof McpToolDefinition.Type

export const ToolDefinition = Schema.Union(HttpApiToolDefinition, McpToolDefinition).annotations({ identifier: "ToolDefinition" })
export type ToolDefinition = typeof ToolDefinition.Type

export const ToolCreatedBy = Schema.Struct({
  id: Schema.Number,
  /** The user's email (the reference's identity-provider id; this server's users are its own). */
  provider_id: Schema.String
}).annotations({ identifier: "ToolCreatedBy" })

export const Tool = Schema.Struct({
  id: Schema.Number,
  tool_uuid: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  category: ToolCategory,
  icon: Schema.NullOr(Schema.String),
  icon_color: Schema.NullOr(Schema.String),
  status: ToolStatus,
  definition: ToolDefinition,
  created_at: Schema.String,
  updated_at: Schema.NullOr(Schema.String),
  created_by: Schema.NullOr(ToolCreatedBy)
}).annotations({ identifier: "ToolResponse" })
export type Tool = typeof Tool.Type

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(255, { message: () => "name must be at most 255 characters" })
).annotations(lengthLimits(1, 255))
const Description = Schema.NullOr(Schema.String.pipe(Schema.maxLength(4000, { message: () => "description must be at most 4000 characters" })))
const Icon = Schema.NullOr(Schema.String.pipe(Schema.maxLength(50)))
const IconColor = Schema.NullOr(Schema.String.pipe(Schema.maxLength(7)))

/**
 * `category` must be the definition's `type` (it defaults to it). The name is what the model sees as
 * the function's name, lower-cased with every character but a-z and 0-9 made `_`; the description is
 * what it reads to decide when to call it.
 */
export const CreateToolRequest = Schema.Struct({
  name: Name,
  description: Schema.optionalWith(Description, { default: () => null }),
  category: Schema.optional(ToolCategory),
  icon: Schema.optionalWith(Icon, { default: () => "globe" }),
  icon_color: Schema.optionalWith(IconColor, { default: () => "#3B82F6" }),
  definition: ToolDefinition
}).annotations({ identifier: "CreateToolRequest" })
export type CreateToolRequest = typeof CreateToolRequest.Type

/** Fields left out (or null) stay as they are. The definition's `type` cannot change: create another tool. */
export const UpdateToolRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  description: Schema.optional(Description),
  icon: Schema.optional(Icon),
  icon_color: Schema.optional(IconColor),
  definition: Schema.optional(Schema.NullOr(ToolDefinition)),
  status: Schema.optional(Schema.NullOr(ToolStatus))
}).annotations({ identifier: "UpdateToolRequest" })
export type UpdateToolRequest = typeof UpdateToolRequest.Type

export const ToolListParams = Schema.Struct({
  /** `active` or `archived`; both when absent. */
  status: Schema.optional(Schema.String),
  /** `http_api` or `mcp`; both when absent. */
  category: Schema.optional(Schema.String)
})

/**
 * Sample arguments for `POST /tools/{tool_uuid}/test`. `llm_params` are what the model would send;
 * `preset_params` replace preset parameters' values (which otherwise render against an empty call
 * context). An MCP tool also needs `mcp_tool_name`, one of its server's tools.
 */
export const ToolTestRequest = Schema.Struct({
  llm_params: Schema.optionalWith(JsonObject, { default: () => ({}) }),
  preset_params: Schema.optionalWith(JsonObject, { default: () => ({}) }),
  mcp_tool_name: Schema.optional(Schema.NullOr(Schema.String))
}).annotations({ identifier: "ToolTestRequest" })
export type ToolTestRequest = typeof ToolTestRequest.Type

/**
 * What a test call did and what the model would have been given. `status` is `success` for a 2xx
 * answer (or an MCP result that is not an error) and `error` otherwise; `result` is the text the model
 * reads, cut at `TOOL_RESULT_MAX_CHARS` characters (`result_truncated`). Credential headers are shown
 * masked.
 */
export const ToolTestResponse = Schema.Struct({
  status: Schema.Literal("success", "error"),
  status_code: Schema.NullOr(Schema.Number),
  data: Schema.Unknown,
  error: Schema.NullOr(Schema.String),
  hint: Schema.NullOr(Schema.String),
  request_method: Schema.String,
  request_url: Schema.String,
  request_headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  request_body: Schema.Unknown,
  request_params: Schema.NullOr(JsonObject),
  duration_ms: Schema.Number,
  result: Schema.String,
  result_truncated: Schema.Boolean,
  response_bytes: Schema.Number
}).annotations({ identifier: "ToolTestResponse" })
export type ToolTestResponse = typeof ToolTestResponse.Type

/** The MCP server's tools after a refresh; `error` says why the server could not be listed (the previous list is kept). */
export const McpRefreshResponse = Schema.Struct({
  tool_uuid: Schema.String,
  discovered_tools: Schema.Array(DiscoveredMcpTool),
  error: Schema.NullOr(Schema.String)
}).annotations({ identifier: "McpRefreshResponse" })
export type McpRefreshResponse = typeof McpRefreshResponse.Type

/** The most characters of a tool's answer the model is given (the rest is cut, and the model is told so). */
export const TOOL_RESULT_MAX_CHARS = 8_000
/** The most bytes of a tool's answer read from the network; past that the answer is cut. */
export const TOOL_RESPONSE_MAX_BYTES = 1_048_576
