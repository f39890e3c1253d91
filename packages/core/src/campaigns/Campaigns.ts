/**
 * Campaigns: creation from an uploaded CSV (imported in the request, in batches, in one transaction,
 * so a rejected file leaves nothing behind), settings, the state machine's API operations, runs and redial.
 * Dialing is the dispatcher's; this service tells it when a campaign starts, pauses or stops.
 */
import { Clock, Effect, Either, Option, Stream } from "effect"
import { Dispatcher } from "../dispatcher/Dispatcher.js"
import type { CampaignLogEntry } from "../dispatcher/DispatchRepo.js"
import { BadRequest, Conflict, NotFound } from "../Errors.js"
import type { Principal } from "../organizations/Principal.js"
import { Runs } from "../runs/Runs.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import { Transactor } from "../Transactor.js"
import { Uploads } from "../uploads/Uploads.js"
import { definitionVariables } from "../workflows/Template.js"
import { Workflows } from "../workflows/Workflows.js"
import type { Campaign, CreateCampaignRequest, RedialRequest, UpdateCampaignRequest } from "./Campaign.js"
import { type CampaignAction, transition } from "./CampaignState.js"
import { CampaignsRepo, type StoredCampaign } from "./CampaignsRepo.js"
import { CircuitBreakerConfig, RetryConfig, ScheduleConfig } from "./CampaignSettings.js"
import { CsvInvalid, describeProblems, makeProblems, readContacts } from "./CsvImport.js"
import { Schema } from "effect"

const iso = (millis: number) => new Date(millis).toISOString()

const entry = (now: number, event: string, message: string, details: Record<string, unknown> = {}, level: CampaignLogEntry["level"] = "info"): CampaignLogEntry => ({
  ts: iso(now),
  level,
  event,
  message,
  details
})

const present = ({ organization_id: _, ...campaign }: StoredCampaign): Campaign => campaign

const notFound = new NotFound({ detail: "Campaign not found" })

/** Effective settings: the schemas' defaults filled in, encoded for storage and responses. */
const effectiveRetry = (value: unknown) => Schema.encodeSync(RetryConfig)(Schema.decodeUnknownSync(RetryConfig)(value ?? {}))
const effectiveBreaker = (value: unknown) =>
  Schema.encodeSync(CircuitBreakerConfig)(Schema.decodeUnknownSync(CircuitBreakerConfig)(value ?? {}))
const effectiveSchedule = (value: unknown) =>
  value == null ? null : Schema.encodeSync(ScheduleConfig)(Schema.decodeUnknownSync(ScheduleConfig)(value))

export class Campaigns extends Effect.Service<Campaigns>()("@agentline/core/Campaigns", {
  effect: Effect.gen(function*() {
    const repo = yield* CampaignsRepo
    const workflows = yield* Workflows
    const routing = yield* OutboundRouting
    const uploads = yield* Uploads
    const tx = yield* Transactor
    const dispatcher = yield* Dispatcher
    const runs = yield* Runs

    const find = (principal: Principal, id: number) =>
      Effect.flatMap(repo.find(principal.organizationId, id), Option.match({
        onNone: () => Effect.fail(notFound),
        onSome: (c: StoredCampaign) => Effect.succeed(c)
      }))

    const create = Effect.fn("Campaigns.create")(function*(principal: Principal, request: CreateCampaignRequest) {
      const workflow = yield* workflows.callable(principal, request.workflow_id)
      const route = yield* routing.resolve(principal.organizationId, request.telephony_configuration_id ?? null)
      yield* uploads.requireUploaded(principal, request.source_id)
      const bytes = yield* uploads.open(principal, request.source_id)
      const requiredVariables = definitionVariables(workflow.workflow_definition as any)
      const now = yield* Clock.currentTimeMillis
      const problems = makeProblems()
      return yield* tx.withTransaction(Effect.gen(function*() {
        const campaign = yield* repo.insert({
          organization_id: principal.organizationId,
          name: request.name,
          workflow_id: workflow.id,
          telephony_configuration_id: route.configurationId,
          source_type: request.source_type,
          source_id: request.source_id,
          retry_config: effectiveRetry(request.retry_config),
          max_concurrency: request.max_concurrency ?? null,
          schedule_config: effectiveSchedule(request.schedule_config),
          circuit_breaker: effectiveBreaker(request.circuit_breaker),
          parent_campaign_id: null,
          log: entry(now, "campaign_created", `Created from ${request.source_id}`),
          now: iso(now)
        })
        let imported = 0
        yield* readContacts(bytes, { requiredVariables, problems }).pipe(
          Stream.runForEach((batch) =>
            Effect.map(repo.insertContacts(campaign.id, principal.organizationId, batch, iso(now)), (duplicates) => {
              for (const row of duplicates) problems.duplicates.add(row)
              imported += batch.length - duplicates.length
            })
          ),
          Effect.catchTag("CsvInvalid", (e: CsvInvalid) => Effect.fail(new BadRequest({ detail: e.message })))
        )
        const problem = describeProblems(problems)
        if (problem !== undefined) return yield* new BadRequest({ detail: problem })
        if (imported === 0) {
          return yield* new BadRequest({ detail: "CSV file must have a header row and at least one contact row" })
        }
        yield* repo.setImported(campaign.id, imported)
        return present(Option.getOrThrow(yield* repo.find(principal.organizationId, campaign.id)))
      }))
    })

    const list = Effect.fn("Campaigns.list")(function*(principal: Principal, page: number, limit: number) {
      const { campaigns, total } = yield* repo.list(principal.organizationId, { offset: (page - 1) * limit, limit })
      return { campaigns: campaigns.map(present), total_count: total, page, limit, total_pages: Math.ceil(total / limit) }
    })

    const get = Effect.fn("Campaigns.get")(function*(principal: Principal, id: number) {
      return present(yield* find(principal, id))
    })

    /** A state change through the one transition table; 409 naming the current state when refused. */
    const act = (action: CampaignAction, options: { readonly markStarted?: boolean; readonly resetBreaker?: boolean } = {}) =>
      Effect.fn(`Campaigns.${action}`)(function*(principal: Principal, id: number) {
        const current = yield* find(principal, id)
        const next = transition(current.state, action)
        if (Either.isLeft(next)) return yield* new Conflict({ detail: next.left.message })
        const now = yield* Clock.currentTimeMillis
        const moved = yield* repo.transition({
          organization_id: principal.organizationId,
          id,
          from: [current.state],
          to: next.right,
          log: entry(now, `campaign_${action === "start" ? "started" : action === "pause" ? "paused" : action === "resume" ? "resumed" : "canceled"}`,
            `${action[0]!.toUpperCase()}${action.slice(1)} requested through the API (was ${current.state})`, {
              previous_state: current.state,
              ...(principal.via._tag === "ApiKey" ? { api_key_id: principal.via.apiKeyId } : { user_id: principal.userId })
            }),
          now: iso(now),
          ...options
        })
        if (Option.isNone(moved)) {
          // Someone (the dispatcher, another request) changed it in between: report what it is now.
          const latest = yield* find(principal, id)
          return yield* new Conflict({ detail: `The campaign changed to '${latest.state}' meanwhile; retry if still wanted` })
        }
        if (next.right === "running") yield* dispatcher.kick
        else yield* dispatcher.wake(id)
        return present(moved.value)
      })

    const update = Effect.fn("Campaigns.update")(function*(principal: Principal, id: number, request: UpdateCampaignRequest) {
      const current = yield* find(principal, id)
      const allowed = transition(current.state, "update")
      if (Either.isLeft(allowed)) return yield* new Conflict({ detail: allowed.left.message })
      const updated = yield* repo.updateSettings(principal.organizationId, id, {
        ...(request.name !== undefined ? { name: request.name } : {}),
        ...(request.retry_config !== undefined ? { retry_config: effectiveRetry(request.retry_config) } : {}),
        ...(request.max_concurrency !== undefined ? { max_concurrency: request.max_concurrency } : {}),
        ...(request.schedule_config !== undefined ? { schedule_config: effectiveSchedule(request.schedule_config) } : {}),
        ...(request.circuit_breaker !== undefined ? { circuit_breaker: effectiveBreaker(request.circuit_breaker) } : {})
      }, ["draft", "paused"], iso(yield* Clock.currentTimeMillis))
      if (Option.isNone(updated)) {
        const latest = yield* find(principal, id)
        return yield* new Conflict({ detail: `Cannot update a campaign in state '${latest.state}': pause it first` })
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
      if (Either.isLeft(allowed)) return yield* new Conflict({ detail: allowed.left.message })
      if (parent.redialed_campaign_id !== null) {
        return yield* new Conflict({ detail: `This campaign was already redialed as campaign ${parent.redialed_campaign_id}` })
      }
      const outcomes = [
        ...(request.retry_on_busy ? ["busy"] : []),
        ...(request.retry_on_no_answer ? ["no_answer"] : []),
        ...(request.retry_on_voicemail ? ["voicemail"] : [])
      ]
      const now = yield* Clock.currentTimeMillis
      return yield* tx.withTransaction(Effect.gen(function*() {
        const child = yield* repo.insert({
          organization_id: principal.organizationId,
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
          log: entry(now, "campaign_created", `Redial of campaign ${parent.id} (${outcomes.join(", ")})`, { parent_campaign_id: parent.id, outcomes }),
          now: iso(now)
        })
        const copied = yield* repo.copyForRedial({ parentId: parent.id, childId: child.id, outcomes, now: iso(now) })
        if (copied === "AlreadyRedialed") return yield* new Conflict({ detail: "This campaign was already redialed" })
        if (copied === 0) return yield* new BadRequest({ detail: `No contacts of campaign ${parent.id} ended with ${outcomes.join(", ")}` })
        yield* repo.setImported(child.id, copied)
        return present(Option.getOrThrow(yield* repo.find(principal.organizationId, child.id)))
      }))
    })

    return {
      create,
      list,
      get,
      update,
      start: act("start", { markStarted: true }),
      pause: act("pause"),
      resume: act("resume", { resetBreaker: true }),
      cancel: act("cancel"),
      runs: campaignRuns,
      redial
    } as const
  })
}) {}
