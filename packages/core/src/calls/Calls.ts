/**
 * Single outbound calls started by an API request (`/public/agent/...`), and provider callbacks.
 */
import { Effect, Either, Option, Schema } from "effect"
import { Dispatcher } from "../dispatcher/Dispatcher.js"
import { DispatchRepo } from "../dispatcher/DispatchRepo.js"
import { Conflict, NotFound, Unauthorized, ValidationError } from "../Errors.js"
import type { Principal } from "../organizations/Principal.js"
import { normalizeAddress } from "../phone-numbers/PhoneAddress.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import type { WebhookRequest } from "../telephony/TelephonyProvider.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"

export const CallRequest = Schema.Struct({
  phone_number: Schema.String,
  initial_context: Schema.optional(Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  telephony_configuration_id: Schema.optional(Schema.NullOr(Schema.Int))
})
export type CallRequest = typeof CallRequest.Type

export const CallResponse = Schema.Struct({
  status: Schema.String,
  workflow_run_id: Schema.Int,
  workflow_run_name: Schema.String
})

/** Context keys the caller cannot override: they describe the call itself. */
const RESERVED = new Set(["provider", "runtime_configuration", "direction", "called_number", "caller_number", "campaign_id"])

export class Calls extends Effect.Service<Calls>()("@agentline/core/Calls", {
  effect: Effect.gen(function*() {
    const workflows = yield* WorkflowsRepo
    const dispatcher = yield* Dispatcher
    const dispatch = yield* DispatchRepo
    const routing = yield* OutboundRouting

    const start = Effect.fn("Calls.start")(function*(
      principal: Principal,
      agent: { readonly _tag: "WorkflowUuid"; readonly uuid: string } | { readonly _tag: "TriggerPath"; readonly path: string },
      request: CallRequest
    ) {
      const found = agent._tag === "WorkflowUuid"
        ? yield* workflows.findByUuid(agent.uuid)
        : yield* workflows.findByTriggerPath(agent.path)
      // Another organization's agent is reported exactly like a missing one.
      if (Option.isNone(found) || found.value.organization_id !== principal.organizationId) {
        return yield* new NotFound({ detail: agent._tag === "WorkflowUuid" ? "Agent not found" : "Agent trigger not found" })
      }
      const workflow = found.value
      if (agent._tag === "TriggerPath") {
        const node = ((workflow.workflow_definition as any).nodes ?? []).find(
          (n: any) => n?.type === "trigger" && n?.data?.trigger_path === agent.path
        )
        if (!node || node.data?.enabled === false) return yield* new NotFound({ detail: "Agent trigger is not active" })
      }
      if (workflow.status !== "active") {
        return yield* new Conflict({
          detail: `Agent ${workflow.id} is archived and cannot be called; restore it with PUT /api/v1/workflow/${workflow.id}/status {"status": "active"}`
        })
      }
      const to = normalizeAddress(request.phone_number, null)
      if (Either.isLeft(to)) {
        return yield* ValidationError.single(["body", "phone_number"], to.left.message, request.phone_number)
      }
      const context: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(request.initial_context ?? {})) if (!RESERVED.has(key)) context[key] = value
      context.agent_identifier = agent._tag === "WorkflowUuid" ? agent.uuid : agent.path
      context.agent_identifier_type = agent._tag === "WorkflowUuid" ? "workflow_uuid" : "trigger_path"
      if (principal.via._tag === "ApiKey") context.api_key_id = principal.via.apiKeyId
      return yield* dispatcher.placeSingleCall({
        organizationId: principal.organizationId,
        workflow,
        to: to.right.normalized,
        initialContext: context,
        telephonyConfigurationId: request.telephony_configuration_id ?? null
      })
    })

    /** A provider's status callback for one attempt: verified with that configuration's credentials. */
    const callback = Effect.fn("Calls.callback")(function*(provider: string, attemptId: number, request: WebhookRequest) {
      const attempt = yield* dispatch.findAttempt(attemptId)
      if (Option.isNone(attempt) || attempt.value.provider !== provider) return yield* new NotFound({ detail: "Unknown call" })
      const route = yield* routing.resolve(attempt.value.organization_id, attempt.value.telephony_configuration_id).pipe(
        Effect.mapError(() => new NotFound({ detail: "Unknown call" }))
      )
      if (!(yield* route.provider.verifySignature({ config: route.config, request }))) {
        return yield* new Unauthorized({ detail: "Invalid callback signature" })
      }
      const events = yield* route.provider.parseCallback({ config: route.config, request }).pipe(
        Effect.mapError((e) => ValidationError.single(["body"], e.message, null))
      )
      yield* Effect.forEach(events, (event) => dispatcher.handleEvent(attemptId, event), { discard: true })
      return { ok: true, events: events.length }
    })

    return { start, callback } as const
  })
}) {}
