import { BadRequestResponse, NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { Success } from "../Params.js"
import {
  CreateToolRequest,
  McpRefreshResponse,
  Tool,
  ToolListParams,
  ToolTestRequest,
  ToolTestResponse,
  UpdateToolRequest
} from "./Tools.js"

const ToolPath = Schema.Struct({ tool_uuid: Schema.String })

/** The organization's tools (the reference's `/tools`, same paths and shapes): any user of the organization. */
export class ToolsApi extends HttpApiGroup.make("tools").annotate(OpenApi.Description, "Tools an agent can call during a conversation (HTTP APIs, MCP servers)")
  .add(
    HttpApiEndpoint.get("list", "/tools").setUrlParams(ToolListParams).addSuccess(Schema.Array(Tool))
      .annotate(OpenApi.Summary, "List tools")
      .annotate(OpenApi.Description, "The organization's tools, oldest first; `status` and `category` narrow the list.")
  )
  .add(
    HttpApiEndpoint.post("create", "/tools").addError(ValidationErrorResponse).setPayload(CreateToolRequest).addSuccess(Tool)
      .annotate(OpenApi.Summary, "Create a tool")
      .annotate(
        OpenApi.Description,
        "An HTTP tool (`definition.type` `http_api`) or an MCP server (`mcp`). 422 lists every field at fault: parameters " +
          "that are not a JSON Schema of an object, placeholders that name no parameter, a URL this server will not call, " +
          "an unknown credential. An MCP server's tools are listed at once when it answers within 5 seconds (else use mcp/refresh)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/tools/:tool_uuid").addError(NotFoundResponse).setPath(ToolPath).addSuccess(Tool)
      .annotate(OpenApi.Summary, "Get a tool")
  )
  .add(
    HttpApiEndpoint.put("update", "/tools/:tool_uuid").addError(NotFoundResponse).addError(ValidationErrorResponse).setPath(ToolPath).setPayload(UpdateToolRequest).addSuccess(Tool)
      .annotate(OpenApi.Summary, "Update a tool")
      .annotate(OpenApi.Description, "Fields left out stay as they are; the definition is checked as on create. Its type cannot change.")
  )
  .add(
    HttpApiEndpoint.del("delete", "/tools/:tool_uuid").addError(NotFoundResponse).setPath(ToolPath).addSuccess(Success)
      .annotate(OpenApi.Summary, "Archive a tool")
      .annotate(
        OpenApi.Description,
        "Archives the tool: agents can no longer name it, and calls in progress stop offering it. It stays listed and can be unarchived."
      )
  )
  .add(
    HttpApiEndpoint.post("unarchive", "/tools/:tool_uuid/unarchive").addError(NotFoundResponse).setPath(ToolPath).addSuccess(Tool)
      .annotate(OpenApi.Summary, "Unarchive a tool")
  )
  .add(
    HttpApiEndpoint.post("test", "/tools/:tool_uuid/test").addError(NotFoundResponse).addError(ValidationErrorResponse).setPath(ToolPath).setPayload(ToolTestRequest).addSuccess(ToolTestResponse)
      .annotate(OpenApi.Summary, "Test a tool")
      .annotate(
        OpenApi.Description,
        "Calls the tool once with sample arguments, as a call would, and answers what happened and the text the language " +
          "model would be given. A failing or slow tool is a 200 with `status: error`; bad sample arguments too (the model " +
          "would be told the same)."
      )
  )
  .add(
    HttpApiEndpoint.post("refreshMcp", "/tools/:tool_uuid/mcp/refresh").addError(BadRequestResponse).addError(NotFoundResponse).setPath(ToolPath).addSuccess(McpRefreshResponse)
      .annotate(OpenApi.Summary, "Refresh an MCP server's tools")
      .annotate(
        OpenApi.Description,
        "Lists the MCP server's tools (`tools/list`) and keeps them on the tool; an unreachable server is a 200 with `error`, " +
          "and the previous list is kept."
      )
  )
  .middleware(Authentication)
{}
