/**
 * Campaigns: creation from an uploaded CSV (checked whole, then imported in the request in batches
 * that let other requests in; a rejected file leaves nothing behind: see ContactImport), settings, the state machine's API operations, runs and redial.
 * Dialing is the dispatcher's; this service tells it when a campaign starts, pauses or stops.
 */
import { CampaignId, OrganizationId, TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { Clock, Effect, Either, Option, Schema } from "effect"
import type { Principal } from "@agentline/api/Authentication"
import { Runs } from "../runs/Runs.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import { iso } from "../Time.js"
import { Transactor } from "../Transactor.js"
import { Uploads } from "../uploads/Uploads.js"
import { definitionVariables } from "../workflows/Template.js"
import { Workflows } from "../workflows/Workflows.js"
import type { Campaign, CreateCampaignRequest, RedialRequest, UpdateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { CampaignDialer } from "./CampaignDialer.js"
import { logEntry } from "./CampaignLog.js"
import { type StateChange, transition } from "./CampaignState.js"
import { CampaignsRepo, type StoredCampaign } from "./CampaignsRepo.js"
import { CampaignTransitions } from "./CampaignTransitions.js"
import { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "@agentline/api/campaigns/CampaignSettings"
import { checkContacts, insertContacts } from "./ContactImport.js"
import {
  CampaignAlreadyRedialed,
  CampaignChangedMeanwhile,
  CampaignImportUnfinished,
  CampaignNotEditable,
  CampaignNotFound,
  NothingToRedial
} from "./Errors.js"

const organizationOf = (principal: Principal) => OrganizationId.make(principal.organizationId)

/**
 * Who asked for a state change, for the campaign's log: the person, and "with an API key" when they
 * used one. A login session is the dashboard's or a script's (both log in the same way), so the log
 * does not claim which.
 */
export const requestedBy = (principal: Pick<Principal, "email" | "via">): string =>
  principal.via._tag === "ApiKey" ? `by ${principal.email} with an API key` : `by ${principal.email}`

const present = ({ organization_id: _, ...campaign }: StoredCampaign): Campaign => campaign

/** Effective settings: the schemas' defaults filled in, encoded for storage and responses. */
const effectiveRetry = (value: unknown) => Schema.encodeSync(RetryConfig)(Schema.decodeUnknownSync(RetryConfig)(value ?? {}))
const effectiveBreaker = (value: unknown) =>
  Schema.encodeSync(CircuitBreakerConfig)(Schema.decodeUnknownSync(CircuitBreakerConfig)(value ?? {}))
const effectiveSchedule = (value: unknown) =>
  value == null ? null : Schema.encodeSync(ScheduleConfig)(Schema.decodeUnknownSync(ScheduleConfig)(value))

export class Campaigns extends Effect.Service<Campaigns>()("@agentline/core/Campaigns", {
  effect: Effect.gen(function*() {
    const repo = yield* CampaignsRepo
    const transitions = yield* CampaignTransitions
    const workflows = yield* Workflows
    const routing = yield* OutboundRouting
    const uploads = yield* Uploads
    const tx = yield* Transactor
    const dialer = yield* CampaignDialer
    const runs = yield* Runs

    const find = (principal: Principal, id: number) =>
      Effect.flatMap(repo.find({ organizationId: organizationOf(principal), campaignId: CampaignId.make(id) }), Option.match({
        onNone: () => Effect.fail(new CampaignNotFound({ campaignId: id })),
        onSome: (c: StoredCampaign) => Effect.succeed(c)
      }))

    const create = Effect.fn("Campaigns.create")(function*(principal: Principal, request: CreateCampaignRequest) {
      const workflow = yield* workflows.callable(principal, request.workflow_id)
      const route = yield* routing.resolve(principal.organizationId, request.telephony_configuration_id ?? null)
      const requiredVariables = definitionVariables(workflow.workflow_definition)
      // The whole file is checked before anything is written (see ContactImport).
      yield* checkContacts(yield* uploads.open(principal, request.source_id), { requiredVariables })
      const now = yield* Clock.currentTimeMillis
      const campaign = yield* repo.insert({
        organization_id: organizationOf(principal),
        name: request.name,
        workflow_id: WorkflowId.make(workflow.id),
        telephony_configuration_id: TelephonyConfigurationId.make(route.configurationId),
        source_type: request.source_type,
        source_id: request.source_id,
        retry_config: effectiveRetry(request.retry_config),
        max_concurrency: request.max_concurrency ?? null,
        schedule_config: effectiveSchedule(request.schedule_config),
        circuit_breaker: effectiveBreaker(request.circuit_breaker),
        parent_campaign_id: null,
        log: logEntry(now, "info", "campaign_created", `Created from ${request.source_id}`),
        now: iso(now)
      })
      yield* insertContacts(repo, campaign, yield* uploads.open(principal, request.source_id), { requiredVariables, now: iso(now) })
      return present(Option.getOrThrow(yield* repo.find({ organizationId: campaign.organization_id, campaignId: campaign.id })))
    })

    const list = Effect.fn("Campaigns.list")(function*(principal: Principal, page: number, limit: number) {
      const { campaigns, total } = yield* repo.list({ organizationId: organizationOf(principal), offset: (page - 1) * limit, limit })
      return { campaigns: campaigns.map(present), total_count: total, page, limit, total_pages: Math.ceil(total / limit) }
    })

    const get = Effect.fn("Campaigns.get")(function*(principal: Principal, id: number) {
      return present(yield* find(principal, id))
    })

    /** A state change through the one transition table; 409 naming the current state when refused. */
    const act = (action: StateChange & ("start" | "pause" | "resume" | "cancel"), done: string) =>
      Effect.fn(`Campaigns.${action}`)(function*(principal: Principal, id: number) {
        const current = yield* find(principal, id)
        if (current.total_rows === null) {
          // Still importing, or the process importing it stopped (see ContactImport).
          return yield* new CampaignImportUnfinished({ campaignId: current.id })
        }
        const next = transition(current.state, action)
        if (Either.isLeft(next)) return yield* next.left
        const now = yield* Clock.currentTimeMillis
        const moved = yield* transitions.apply({
          campaignId: current.id,
          organizationId: current.organization_id,
          action,
          expected: current.state,
          log: logEntry(now, "info", `campaign_${done}`,
            `${action[0]!.toUpperCase()}${action.slice(1)} requested ${requestedBy(principal)} (was ${current.state})`, {
              previous_state: current.state,
              ...(principal.via._tag === "ApiKey" ? { api_key_id: principal.via.apiKeyId } : { user_id: principal.userId })
            })
        })
        if (Option.isNone(moved)) {
          // Someone (the dispatcher, another request) changed it in between: report what it is now.
          const latest = yield* find(principal, id)
          return yield* new CampaignChangedMeanwhile({ campaignId: id, state: latest.state })
        }
        yield* dialer.stateChanged(moved.value)
        return present(moved.value)
      })

    const update = Effect.fn("Campaigns.update")(function*(principal: Principal, id: number, request: UpdateCampaignRequest) {
      const current = yield* find(principal, id)
      const allowed = transition(current.state, "update")
      if (Either.isLeft(allowed)) return yield* allowed.left
      const updated = yield* repo.updateSettings({
        organizationId: current.organization_id,
        campaignId: current.id,
        update: {
          ...(request.name !== undefined ? { name: request.name } : {}),
          // Settings objects are merged: the fields sent over the stored ones.
          ...(request.retry_config !== undefined ? { retry_config: effectiveRetry({ ...current.retry_config, ...request.retry_config }) } : {}),
          ...(request.max_concurrency !== undefined ? { max_concurrency: request.max_concurrency } : {}),
          ...(request.schedule_config !== undefined ? { schedule_config: effectiveSchedule(request.schedule_config) } : {}),
          ...(request.circuit_breaker !== undefined
            ? { circuit_breaker: effectiveBreaker({ ...current.circuit_breaker, ...request.circuit_breaker }) }
            : {})
        },
        allowedStates: ["draft", "paused"],
        now: iso(yield* Clock.currentTimeMillis)
      })
      if (Option.isNone(updated)) {
        const latest = yield* find(principal, id)
        return yield* new CampaignNotEditable({ campaignId: id, state: latest.state })
      }
      return present(updated.value)
    })

    const campaignRuns = Effect.fn("Campaigns.runs")(function*(principal: Principal, id: number, page: number, limit: number) {
      yield* find(principal, id)
      return yield* runs.page(principal, { campaignId: id }, page, limit)
    })

    const redial = Effect.fn("Campaigns.redial")(function*(principal: Principal, id: number, request: RedialRequest) {
      const parent = yield* find(principal, id)
      const allowed = transition(parent.state, "redial")
      if (Either.isLeft(allowed)) return yield* allowed.left
      if (parent.redialed_campaign_id !== null) {
        return yield* new CampaignAlreadyRedialed({ campaignId: parent.id, redialedAs: parent.redialed_campaign_id })
      }
      const outcomes = [
        ...(request.retry_on_busy ? ["busy"] : []),
        ...(request.retry_on_no_answer ? ["no_answer"] : []),
        ...(request.retry_on_voicemail ? ["voicemail"] : [])
      ]
      const now = yield* Clock.currentTimeMillis
      return yield* tx.withTransaction(Effect.gen(function*() {
        const child = yield* repo.insert({
          organization_id: parent.organization_id,
          name: request.name ?? `${parent.name} (Redial)`,
          workflow_id: parent.workflow_id,
          telephony_configuration_id: parent.telephony_configuration_id,
          source_type: parent.source_type,
          source_id: parent.source_id,
          retry_config: request.retry_config !== undefined ? effectiveRetry(request.retry_config) : parent.retry_config,
          max_concurrency: parent.max_concurrency,
          schedule_config: parent.schedule_config,
          circuit_breaker: parent.circuit_breaker,
          parent_campaign_id: parent.id,
          log: logEntry(now, "info", "campaign_created", `Redial of campaign ${parent.id} (${outcomes.join(", ")})`, {
            parent_campaign_id: parent.id,
            outcomes
          }),
          now: iso(now)
        })
        const copied = yield* repo.copyForRedial({ parentId: parent.id, childId: child.id, outcomes, now: iso(now) })
        if (copied === "AlreadyRedialed") return yield* new CampaignAlreadyRedialed({ campaignId: parent.id, redialedAs: null })
        if (copied === 0) return yield* new NothingToRedial({ campaignId: parent.id, outcomes })
        yield* repo.setImported({ campaignId: child.id, contacts: copied })
        return present(Option.getOrThrow(yield* repo.find({ organizationId: child.organization_id, campaignId: child.id })))
      }))
    })

    return {
      create,
      list,
      get,
      update,
      start: act("start", "started"),
      pause: act("pause", "paused"),
      resume: act("resume", "resumed"),
      cancel: act("cancel", "canceled"),
      runs: campaignRuns,
      redial
    } as const
  })
}) {}
