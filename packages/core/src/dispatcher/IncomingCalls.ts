/**
 * Incoming calls take an organization slot like any call (the same concurrency limit as campaigns and
 * single calls), without waiting: over the limit the caller gets a busy signal. An accepted call is an
 * attempt `dialing` from the start (the provider already has the call), with its run (`call_type:
 * "inbound"`) and the provider's call id, so callbacks, the media stream, recovery and the sweeper
 * treat it like any other call.
 */
import { type OrganizationId, TelephonyConfigurationId } from "@agentline/api/Ids"
import { Clock, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import type { OutboundRoute } from "../telephony/OutboundRouting.js"
import { iso } from "../Time.js"
import type { StoredWorkflow } from "../workflows/WorkflowsRepo.js"
import { Attempts } from "./Attempts.js"
import { claimDeadline } from "./Deadlines.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { DispatchRepo } from "./DispatchRepo.js"

export class IncomingCalls extends Effect.Service<IncomingCalls>()("@agentline/core/dispatcher/IncomingCalls", {
  effect: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const attempts = yield* Attempts
    const settings = yield* DispatcherSettings

    /** The call's attempt and run, or none when the organization is at its limit. */
    const accept = Effect.fn("Dispatcher.acceptIncomingCall")(function*(input: {
      readonly organizationId: OrganizationId
      readonly workflow: StoredWorkflow
      readonly route: OutboundRoute
      /** Our number that was called, and the caller, both normalized. */
      readonly called: string
      readonly caller: string
      readonly providerCallId: string
    }) {
      const at = yield* Clock.currentTimeMillis
      return yield* Effect.uninterruptible(Effect.gen(function*() {
        const slot = yield* repo.claimSingle({
          organizationId: input.organizationId,
          to: input.called,
          provider: input.route.provider.name,
          telephonyConfigurationId: TelephonyConfigurationId.make(input.route.configurationId),
          nodeId: settings.nodeId,
          now: iso(at),
          reconcileAt: iso(claimDeadline(at, settings.reconcileMarginSeconds))
        })
        if (Option.isNone(slot)) return Option.none()
        const { attempt, run } = yield* attempts.begin({
          attemptId: slot.value,
          organizationId: input.organizationId,
          campaign: undefined,
          contactId: null,
          workflow: input.workflow,
          attemptNumber: 1,
          route: input.route,
          from: input.caller,
          name: `WR-TEL-IN-${Crypto.randomBytes(4).toString("hex").toUpperCase()}`,
          initialContext: {
            caller_number: input.caller,
            called_number: input.called,
            phone_number: input.caller,
            direction: "inbound",
            provider: input.route.provider.name,
            telephony_configuration_id: input.route.configurationId,
            workflow_uuid: input.workflow.workflow_uuid
          },
          at,
          callType: "inbound"
        })
        yield* attempts.rememberCallId(attempt.attemptId, input.providerCallId)
        return Option.some({ attemptId: attempt.attemptId, run })
      }))
    })

    return { accept } as const
  }),
  dependencies: [Attempts.Default]
}) {}
