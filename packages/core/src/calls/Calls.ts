/**
 * Single outbound calls started by an API request (`/public/agent/...`, `/telephony/initiate-call`),
 * and provider callbacks. Production routes run the agent's published version; test calls its latest
 * version (the draft when there is one), with the agent's template variables as defaults.
 */
import { AttemptId, OrganizationId, TelephonyConfigurationId } from "@agentline/api/Ids"
import type { CallRequest } from "@agentline/api/calls/Call"
import { Effect, Either, Option } from "effect"
import { Dispatcher } from "../dispatcher/Dispatcher.js"
import { DispatchRepo } from "../dispatcher/DispatchRepo.js"
import type { Principal } from "@agentline/api/Authentication"
import { InvalidPhoneNumber } from "../phone-numbers/Errors.js"
import { normalizeAddress } from "../phone-numbers/PhoneAddress.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { AgentArchived, WorkflowNotFound } from "../workflows/Errors.js"
import { type VersionChoice, WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { AgentNotFound, AgentTriggerInactive, InvalidCallback, InvalidCallbackSignature, UnknownCall } from "./Errors.js"

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

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
      agent:
        | { readonly _tag: "WorkflowUuid"; readonly uuid: string }
        | { readonly _tag: "TriggerPath"; readonly path: string }
        | { readonly _tag: "WorkflowId"; readonly id: number },
      request: CallRequest,
      version: VersionChoice
    ) {
      const found = agent._tag === "WorkflowUuid"
        ? yield* workflows.findByUuid(agent.uuid, version)
        : agent._tag === "TriggerPath"
        ? yield* workflows.findByTriggerPath(agent.path, version)
        : yield* workflows.find(principal.organizationId, agent.id, version)
      // Another organization's agent is reported exactly like a missing one.
      if (Option.isNone(found) || found.value.organization_id !== principal.organizationId) {
        return yield* agent._tag === "WorkflowUuid"
          ? new AgentNotFound({ by: "uuid", value: agent.uuid })
          : agent._tag === "TriggerPath"
          ? new AgentNotFound({ by: "trigger_path", value: agent.path })
          : new WorkflowNotFound({ workflowId: agent.id })
      }
      const workflow = found.value
      // The trigger must be in the version that runs (a draft may add one the published version lacks).
      if (agent._tag === "TriggerPath") {
        const nodes: ReadonlyArray<unknown> = Array.isArray(workflow.workflow_definition["nodes"]) ? workflow.workflow_definition["nodes"] : []
        const data = nodes.map((n) => (isRecord(n) && n["type"] === "trigger" && isRecord(n["data"]) ? n["data"] : undefined))
          .find((d) => d?.["trigger_path"] === agent.path)
        if (data === undefined || data["enabled"] === false) return yield* new AgentTriggerInactive({ triggerPath: agent.path })
      }
      if (workflow.status !== "active") {
        return yield* new AgentArchived({ workflowId: workflow.id })
      }
      const to = normalizeAddress(request.phone_number, null)
      if (Either.isLeft(to)) {
        return yield* new InvalidPhoneNumber({ field: "phone_number", input: request.phone_number, reason: to.left.message })
      }
      // A test call gets the agent's template variables under what the request gives, as the reference's does.
      const given = version === "latest"
        ? { ...(workflow.template_context_variables ?? {}), ...(request.initial_context ?? {}) }
        : request.initial_context ?? {}
      const context: Record<string, unknown> = {}
      for (const [key, value] of Object.entries(given)) if (!RESERVED.has(key)) context[key] = value
      context.agent_identifier = agent._tag === "WorkflowUuid" ? agent.uuid : agent._tag === "TriggerPath" ? agent.path : agent.id
      context.agent_identifier_type = agent._tag === "WorkflowUuid" ? "workflow_uuid" : agent._tag === "TriggerPath" ? "trigger_path" : "workflow_id"
      context.trigger_mode = version === "latest" ? "test" : "production"
      if (principal.via._tag === "ApiKey") context.api_key_id = principal.via.apiKeyId
      return yield* dispatcher.placeSingleCall({
        organizationId: OrganizationId.make(principal.organizationId),
        workflow,
        to: to.right.normalized,
        initialContext: context,
        telephonyConfigurationId: request.telephony_configuration_id == null
          ? null
          : TelephonyConfigurationId.make(request.telephony_configuration_id)
      })
    })

    /** A provider's status callback for one attempt: verified with that configuration's credentials. */
    const callback = Effect.fn("Calls.callback")(function*(provider: string, id: number, request: WebhookRequest) {
      const attemptId = AttemptId.make(id)
      const attempt = yield* dispatch.findAttempt(attemptId)
      if (Option.isNone(attempt) || attempt.value.provider !== provider) return yield* new UnknownCall({ attemptId })
      const route = yield* routing.resolve(attempt.value.organizationId, attempt.value.telephonyConfigurationId).pipe(
        Effect.mapError(() => new UnknownCall({ attemptId }))
      )
      const webhooks = route.provider.webhooks
      // A provider without webhooks (configuration only, or events over its own connection) has no callbacks.
      if (webhooks === undefined) return yield* new UnknownCall({ attemptId })
      if (!(yield* webhooks.verify({ config: route.config, request }))) {
        return yield* new InvalidCallbackSignature()
      }
      const events = yield* webhooks.parseStatus({ config: route.config, request }).pipe(
        Effect.mapError((e) => new InvalidCallback({ reason: e.message }))
      )
      yield* Effect.forEach(events, (event) => dispatcher.handleEvent(attemptId, event, { durable: true }), { discard: true })
      return { ok: true, events: events.length }
    })

    return { start, callback } as const
  })
}) {}
