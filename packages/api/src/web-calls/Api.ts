/**
 * Web calls (docs/web-calls.md): talking to an agent by voice from a browser. The endpoint makes the
 * call's run and the single-use token of its WebSocket; the WebSocket itself
 * (`GET /api/v1/web-calls/{token}`) is not in this document (OpenAPI does not describe WebSockets).
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { WorkflowId } from "../Ids.js"
import { idFromString } from "../Params.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const CreateWebCallRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(255)))),
  /** Variables for the agent's prompts, over the agent's `template_context_variables`. */
  initial_context: Schema.optional(Schema.NullOr(JsonObject))
})

export const WebCallResponse = Schema.Struct({
  workflow_run_id: Schema.Int,
  /** Opens the call's WebSocket once, until `expires_at` (a minute). */
  token: Schema.String,
  /** The WebSocket on this server's public address (`AGENTLINE_PUBLIC_URL`). */
  websocket_url: Schema.String,
  /** The same, as a path on the server that answered (what a page of this server opens). */
  websocket_path: Schema.String,
  expires_at: Schema.String,
  /** The audio both ways: 16-bit little-endian PCM, mono, at this rate. */
  sample_rate: Schema.Int,
  encoding: Schema.Literal("pcm_s16le")
}).annotations({ identifier: "WebCallResponse" })

const WorkflowPath = Schema.Struct({ workflow_id: idFromString(WorkflowId) })

/** A web call with an agent's latest version (its draft when it has one), by the organization. */
export class WebCallsApi extends HttpApiGroup.make("webCalls")
  .add(
    HttpApiEndpoint.post("create", "/workflow/:workflow_id/web-call").annotate(OpenApi.Summary, "Start a web call with an agent's latest version")
      .annotate(OpenApi.Description, "Creates the call's run (mode `webcall`) and a single-use token, valid for a minute, that opens the call's WebSocket: 16-bit PCM mono audio both ways in binary messages, JSON control messages (docs/web-calls.md).")
      .addError(NotFoundResponse).addError(ValidationErrorResponse).setPath(WorkflowPath).setPayload(CreateWebCallRequest).addSuccess(WebCallResponse)
  )
  .middleware(Authentication)
{}
