/**
 * Single outbound calls started by an API request: an organization slot or 429 at once, then the same
 * steps as a campaign call, placed before the request is answered.
 */
import { type OrganizationId, TelephonyConfigurationId } from "@agentline/api/Ids"
import { Clock, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import { iso } from "../Time.js"
import type { StoredWorkflow } from "../workflows/WorkflowsRepo.js"
import { Attempts } from "./Attempts.js"
import { CallerIds } from "./CallerIds.js"
import { claimDeadline } from "./Deadlines.js"
import { DispatcherSettings } from "./DispatcherSettings.js"
import { DispatchRepo } from "./DispatchRepo.js"
import { DoNotCallRepo } from "../do-not-call/DoNotCallRepo.js"
import { NumberOnDoNotCallList } from "../do-not-call/Errors.js"
import { CallNotPlaced, ConcurrencyLimitReached } from "./Errors.js"
import { claimDuration, timedSeconds } from "../Telemetry.js"

export class SingleCalls extends Effect.Service<SingleCalls>()("@agentline/core/dispatcher/SingleCalls", {
  effect: Effect.gen(function*() {
    const repo = yield* DispatchRepo
    const routing = yield* OutboundRouting
    const attempts = yield* Attempts
    const callerIds = yield* CallerIds
    const settings = yield* DispatcherSettings
    const doNotCall = yield* DoNotCallRepo

    const place = Effect.fn("Dispatcher.placeSingleCall")(function*(input: {
      readonly organizationId: OrganizationId
      readonly workflow: StoredWorkflow
      readonly to: string
      readonly initialContext: Record<string, unknown>
      readonly telephonyConfigurationId: TelephonyConfigurationId | null
    }) {
      // A number on the do-not-call list is refused before anything is claimed or recorded.
      if (Option.isSome(yield* doNotCall.find(input.organizationId, input.to))) {
        return yield* new NumberOnDoNotCallList({ phoneNumber: input.to })
      }
      const route = yield* routing.resolve(input.organizationId, input.telephonyConfigurationId)
      const at = yield* Clock.currentTimeMillis
      // The claim and its run in one uninterruptible step: a client that goes away mid-request cannot
      // leave a slot claimed (a failure releases it; see `Attempts.begin`). Placing stays interruptible
      // (the provider's own fibers must be), and a call cut short there is settled by the sweeper.
      const placed = yield* Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
        const claimed = yield* Effect.gen(function*() {
          const slot = yield* repo.claimSingle({
            organizationId: input.organizationId,
            to: input.to,
            provider: route.provider.name,
            telephonyConfigurationId: TelephonyConfigurationId.make(route.configurationId),
            nodeId: settings.nodeId,
            now: iso(at),
            reconcileAt: iso(claimDeadline(at, settings.reconcileMarginSeconds))
          })
          if (Option.isNone(slot)) return Option.none()
          const from = callerIds.next(route)
          const { attempt, run } = yield* attempts.begin({
            attemptId: slot.value,
            organizationId: input.organizationId,
            campaign: undefined,
            contactId: null,
            workflow: input.workflow,
            attemptNumber: 1,
            route,
            from,
            name: `WR-API-${Crypto.randomBytes(4).toString("hex").toUpperCase()}`,
            initialContext: {
              ...input.initialContext,
              phone_number: input.to,
              called_number: input.to,
              caller_number: from,
              provider: route.provider.name,
              direction: "outbound",
              telephony_configuration_id: route.configurationId,
              workflow_uuid: input.workflow.workflow_uuid
            },
            at
          })
          return Option.some({ attempt, run, from })
          }).pipe(timedSeconds(claimDuration))
        if (Option.isNone(claimed)) return Option.none()
        const { attempt, from, run } = claimed.value
        return Option.some({ run, call: yield* restore(attempts.place(attempt, route, input.to, from)) })
      }))
      if (Option.isNone(placed)) {
        return yield* new ConcurrencyLimitReached({ organizationId: input.organizationId })
      }
      const { call, run } = placed.value
      if (Either.isLeft(call)) return yield* new CallNotPlaced({ reason: call.left })
      return { status: "initiated", workflow_run_id: run.id, workflow_run_name: run.name }
    })

    return { place } as const
  }),
  dependencies: [Attempts.Default, CallerIds.Default]
}) {}
