import { Calls } from "@agentline/core/calls/Calls"
import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "../Api.js"

export const CallsLive = HttpApiBuilder.group(AgentlineApi, "calls", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    return handlers
      .handle("byWorkflowUuid", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => calls.start(p, { _tag: "WorkflowUuid", uuid: path.workflow_uuid }, payload)))
      .handle("byTriggerPath", ({ path, payload }) =>
        Effect.flatMap(CurrentPrincipal, (p) => calls.start(p, { _tag: "TriggerPath", path: path.uuid }, payload)))
  }))

export const TelephonyCallbacksLive = HttpApiBuilder.group(AgentlineApi, "telephonyCallbacks", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    return handlers.handleRaw("callback", ({ path }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = new Uint8Array(yield* request.arrayBuffer.pipe(Effect.orDie))
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
        return yield* calls.callback(path.provider, path.attempt_id, {
          method: request.method,
          url: request.url,
          headers,
          rawBody: body
        })
      }))
  }))
