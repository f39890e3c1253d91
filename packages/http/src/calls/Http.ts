import { Calls } from "@agentline/core/calls/Calls"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"
import { ServerConfig } from "../ServerConfig.js"

export const CallsLive = HttpApiBuilder.group(AgentlineApi, "calls", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    return handlers
      .handle("byWorkflowUuid", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(calls.start(p, { _tag: "WorkflowUuid", uuid: path.workflow_uuid }, payload, "published"))))
      .handle("byTriggerPath", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(calls.start(p, { _tag: "TriggerPath", path: path.uuid }, payload, "published"))))
      .handle("testByWorkflowUuid", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(calls.start(p, { _tag: "WorkflowUuid", uuid: path.workflow_uuid }, payload, "latest"))))
      .handle("testByTriggerPath", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(calls.start(p, { _tag: "TriggerPath", path: path.uuid }, payload, "latest"))))
  }))

export const TestCallsLive = HttpApiBuilder.group(AgentlineApi, "testCalls", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    return handlers.handle("initiate", ({ payload }) =>
      Effect.flatMap(CurrentPrincipal, (p) =>
        wire(calls.start(p, { _tag: "WorkflowId", id: payload.workflow_id }, {
          phone_number: payload.phone_number,
          ...(payload.initial_context !== undefined ? { initial_context: payload.initial_context } : {}),
          ...(payload.telephony_configuration_id !== undefined ? { telephony_configuration_id: payload.telephony_configuration_id } : {})
        }, "latest")).pipe(
          Effect.map((placed) => ({ ...placed, message: `Call initiated successfully with run name ${placed.workflow_run_name}` }))
        )))
  }))

/**
 * The URL a provider called, as it called it: this server's public address and the path and query the
 * request arrived with. Providers sign that URL (Twilio, Plivo), so the path alone cannot be verified.
 */
export const publicRequestUrl = (publicUrl: string, pathAndQuery: string): string =>
  `${publicUrl.replace(/\/+$/, "")}${pathAndQuery.startsWith("/") ? "" : "/"}${pathAndQuery}`

export const TelephonyCallbacksLive = HttpApiBuilder.group(AgentlineApi, "telephonyCallbacks", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    const { publicUrl } = yield* ServerConfig
    return handlers.handleRaw("callback", ({ path }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = new Uint8Array(yield* request.arrayBuffer.pipe(Effect.orDie))
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
        return yield* wire(calls.callback(path.provider, path.attempt_id, {
          method: request.method,
          url: publicRequestUrl(publicUrl, request.url),
          headers,
          rawBody: body
        }))
      }))
  }))
