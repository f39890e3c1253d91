/**
 * The public embed (docs/embed.md): an agent's embed token, managed by its organization, lets the
 * pages of the origins it allows open sessions with the agent's published version, without any other
 * credential. A session (`init`) is a run of that version and a short-lived session token; the web-call
 * and text-chat transports attach to it with that token. Visitors see the agent's name and the token's
 * widget settings, nothing else of the organization.
 *
 * Limits: the token's own (`usage_limit`, `expires_at`, revocation), and per visitor (the client
 * address; an IPv6 address counts per /64) per token: `VISITOR_SESSIONS` session starts and
 * `VISITOR_CONFIG_READS` configuration reads, counted in memory by each process.
 */
import { RateLimiter } from "@effect/experimental"
import type { Principal } from "@agentline/api/Authentication"
import type { EmbedConfig, EmbedTokenRequest, EmbedTokenResponse, InitEmbedRequest, InitEmbedResponse } from "@agentline/api/embed/Embed"
import { DefinitionId, OrganizationId, RunId, WorkflowId } from "@agentline/api/Ids"
import { Clock, Duration, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import { sha256 } from "../crypto/Digest.js"
import { PublicUrls } from "../PublicUrls.js"
import { RunsRepo } from "../runs/RunsRepo.js"
import { iso } from "../Time.js"
import { Transactor } from "../Transactor.js"
import { addressKey, UNKNOWN_ADDRESS } from "../users/LoginThrottle.js"
import { WorkflowNotFound } from "../workflows/Errors.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { type EmbedTokenFields, EmbedRepo, type StoredEmbedToken } from "./EmbedRepo.js"
import {
  EmbedAgentUnavailable,
  EmbedOriginRefused,
  EmbedTokenChangedMeanwhile,
  EmbedTokenExpired,
  EmbedTokenInactive,
  EmbedTokenNotFound,
  EmbedUsageLimitReached,
  EmbedVisitorThrottled,
  InvalidEmbedRequest,
  NoActiveEmbedToken
} from "./Errors.js"
import { originAllowed, parseAllowedOrigins } from "./Origins.js"
import { settingsProblems, widgetConfig } from "./WidgetSettings.js"

/** How long a session token opens a transport after `init`. */
export const SESSION_TTL_MILLIS = 60 * 60 * 1000
/** Session starts per visitor per token. */
export const VISITOR_SESSIONS = { limit: 10, window: Duration.minutes(10) } as const
/** Configuration reads per visitor per token. */
export const VISITOR_CONFIG_READS = { limit: 120, window: Duration.minutes(1) } as const
/** A new token's lifetime when its request names none. */
export const DEFAULT_EXPIRES_IN_DAYS = 30

/** Context variables a page may give a session. */
export const MAX_CONTEXT_VARIABLES = 20
const CONTEXT_KEY = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
/** Keys the server sets on an embed run: a page cannot give them. */
const RESERVED_CONTEXT = new Set(["provider", "direction", "runtime_configuration", "called_number", "caller_number", "campaign_id", "embed"])

/** The run mode of an embed session, by the widget's kind. */
export const EMBED_RUN_MODE = { voice: "webcall", chat: "textchat" } as const

/** Where a request to the public embed comes from: the page (its `Origin`), the client address, the browser. */
export interface Visitor {
  readonly origin: string | undefined
  readonly address: string
  readonly userAgent: string | undefined
}


/** Checks a page's context variables; every problem at once. */
export const contextProblems = (variables: Record<string, unknown>): ReadonlyArray<{ readonly key: string; readonly message: string }> => {
  const problems: Array<{ key: string; message: string }> = []
  const keys = Object.keys(variables)
  if (keys.length > MAX_CONTEXT_VARIABLES) {
    problems.push({ key: "", message: `context_variables has ${keys.length} keys; at most ${MAX_CONTEXT_VARIABLES} are allowed` })
  }
  for (const [key, value] of Object.entries(variables)) {
    if (!CONTEXT_KEY.test(key)) problems.push({ key, message: `context_variables key '${key.slice(0, 80)}' must be letters, digits and _ (up to 64), not starting with a digit` })
    else if (RESERVED_CONTEXT.has(key)) problems.push({ key, message: `context_variables key '${key}' is set by the server; choose another name` })
    else if (!(typeof value === "number" && Number.isFinite(value) || typeof value === "boolean" || typeof value === "string" && value.length <= 500)) {
      problems.push({ key, message: `context_variables.${key} must be a string of at most 500 characters, a number or a boolean` })
    }
  }
  return problems
}

export class Embeds extends Effect.Service<Embeds>()("@agentline/core/Embeds", {
  effect: Effect.gen(function*() {
    const repo = yield* EmbedRepo
    const workflows = yield* WorkflowsRepo
    const runs = yield* RunsRepo
    const transactor = yield* Transactor
    const limiter = yield* RateLimiter.RateLimiter
    const urls = yield* PublicUrls

    const now = Effect.map(Clock.currentTimeMillis, (millis) => ({ millis, iso: iso(millis) }))

    /** The snippet a site owner pastes; a comment saying so while this server serves no widget script. */
    const embedScript = (token: StoredEmbedToken) => {
      const script = urls.embedWidgetScript
      if (script === undefined) {
        return "<!-- Agentline: this server does not serve the widget script yet. The token works with the public embed API " +
          "(POST /api/v1/public/embed/init, GET /api/v1/public/embed/config/{token}). -->"
      }
      const settings = token.settings ?? {}
      const attribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")
      const config = widgetConfig(settings)
      return `<script src="${attribute(script())}" data-agentline-token="${attribute(token.token)}" ` +
        `data-agentline-position="${attribute(config.position)}" data-agentline-theme="${attribute(config.theme)}" async></script>`
    }

    const response = (token: StoredEmbedToken): EmbedTokenResponse => ({
      id: token.id,
      token: token.token,
      allowed_domains: token.allowed_origins,
      settings: token.settings,
      is_active: token.is_active,
      usage_count: token.usage_count,
      usage_limit: token.usage_limit,
      expires_at: token.expires_at,
      created_at: token.created_at,
      embed_script: embedScript(token)
    })

    const agentOf = (principal: Principal, workflowId: number) =>
      Effect.flatMap(workflows.find(principal.organizationId, workflowId), Option.match({
        onNone: () => Effect.fail(new WorkflowNotFound({ workflowId })),
        onSome: Effect.succeed
      }))

    /** The agent's active token, if any (`null` on the wire, as the reference answers). */
    const tokenFor = Effect.fn("Embeds.tokenFor")(function*(principal: Principal, workflowId: number) {
      yield* agentOf(principal, workflowId)
      return Option.getOrNull(Option.map(yield* repo.findActive(principal.organizationId, workflowId), response))
    })

    /**
     * Creates the agent's token, or updates its active one (the same token value: pages that carry it
     * keep working). A revoked token is never made valid again: after a revocation this makes a new one.
     */
    const saveToken = Effect.fn("Embeds.saveToken")(function*(principal: Principal, workflowId: number, request: EmbedTokenRequest) {
      yield* agentOf(principal, workflowId)
      const current = yield* repo.findActive(principal.organizationId, workflowId)
      const issues: Array<InvalidEmbedRequest["issues"][number]> = []
      let origins: ReadonlyArray<string> | undefined
      if (request.allowed_domains != null) {
        const parsed = parseAllowedOrigins(request.allowed_domains)
        if (Either.isLeft(parsed)) {
          for (const problem of parsed.left) {
            issues.push(problem.index < 0
              ? { loc: ["body", "allowed_domains"], message: `allowed_domains ${problem.reason}`, input: request.allowed_domains }
              : { loc: ["body", "allowed_domains", problem.index], message: `allowed_domains[${problem.index}] '${problem.entry.slice(0, 100)}' ${problem.reason}`, input: problem.entry })
          }
        } else origins = parsed.right
      } else if (Option.isNone(current)) {
        issues.push({
          loc: ["body", "allowed_domains"],
          message: "allowed_domains is required for a new token: list the origins of the pages that embed the widget (https://shop.example.com), or [\"*\"] for any page",
          input: null
        })
      }
      if (request.settings != null) {
        for (const problem of settingsProblems(request.settings)) {
          issues.push({ loc: ["body", "settings", ...(problem.field === "" ? [] : problem.field.split("."))], message: problem.message, input: null })
        }
      }
      if (issues.length > 0) return yield* new InvalidEmbedRequest({ issues })

      const at = yield* now
      const expiresAt = (days: number | null) => (days === null ? null : iso(at.millis + days * 24 * 60 * 60 * 1000))
      const keep = Option.getOrUndefined(current)
      const fields: EmbedTokenFields = {
        allowed_origins: origins ?? keep?.allowed_origins ?? [],
        settings: request.settings !== undefined && request.settings !== null ? request.settings : keep?.settings ?? null,
        usage_limit: request.usage_limit !== undefined ? request.usage_limit : keep?.usage_limit ?? null,
        expires_at: request.expires_in_days !== undefined
          ? expiresAt(request.expires_in_days)
          : keep !== undefined
          ? keep.expires_at
          : expiresAt(DEFAULT_EXPIRES_IN_DAYS)
      }
      const saved = keep !== undefined
        ? yield* repo.update(keep.id, fields, at.iso)
        : yield* repo.insert({
          organization_id: principal.organizationId,
          workflow_id: workflowId,
          created_by: principal.userId,
          token: `emb_${Crypto.randomBytes(24).toString("base64url")}`,
          fields,
          now: at.iso
        })
      return yield* Option.match(saved, {
        onNone: () => Effect.fail(new EmbedTokenChangedMeanwhile({ workflowId })),
        onSome: (token) => Effect.succeed(response(token))
      })
    })

    /** Revokes the agent's active token for good: pages carrying it stop working at once. */
    const revoke = Effect.fn("Embeds.revoke")(function*(principal: Principal, workflowId: number) {
      yield* agentOf(principal, workflowId)
      const revoked = yield* repo.revoke(principal.organizationId, workflowId, (yield* now).iso)
      if (Option.isNone(revoked)) return yield* new NoActiveEmbedToken({ workflowId })
      return { message: "Embed token deactivated successfully" }
    })

    /** The token, usable now from the visitor's page: active, not expired, the origin allowed. */
    const usable = (value: string, visitor: Visitor) =>
      Effect.gen(function*() {
        const found = yield* repo.findByToken(value)
        if (Option.isNone(found)) return yield* new EmbedTokenNotFound()
        const token = found.value
        if (!token.is_active) return yield* new EmbedTokenInactive()
        if (token.expires_at !== null && Date.parse(token.expires_at) <= (yield* now).millis) return yield* new EmbedTokenExpired()
        if (!originAllowed(visitor.origin, token.allowed_origins)) return yield* new EmbedOriginRefused({ origin: visitor.origin ?? null })
        const agent = yield* workflows.find(token.organization_id, token.workflow_id)
        if (Option.isNone(agent) || agent.value.status !== "active") return yield* new EmbedAgentUnavailable()
        return { token, agent: agent.value }
      })

    /** Whether a page of `origin` may use the token now (a CORS preflight's question): any failure is a no. */
    const allows = (value: string, origin: string | undefined) =>
      Effect.match(usable(value, { origin, address: UNKNOWN_ADDRESS, userAgent: undefined }), { onFailure: () => false, onSuccess: () => true })

    /** Counts one request of the visitor against `limit`; an unknown address is not counted (one key would be everybody's). */
    const throttle = (what: string, token: StoredEmbedToken, visitor: Visitor, limit: { readonly limit: number; readonly window: Duration.Duration }) =>
      visitor.address === UNKNOWN_ADDRESS
        ? Effect.void
        : limiter.consume({ key: `embed:${what}:${token.id}:${addressKey(visitor.address)}`, limit: limit.limit, window: limit.window }).pipe(
          Effect.asVoid,
          Effect.catchTag("RateLimiterError", (error) =>
            error.reason === "Exceeded"
              ? Effect.fail(new EmbedVisitorThrottled({ retryAfterSeconds: Math.max(1, Math.ceil(Duration.toSeconds(error.retryAfter))) }))
              : Effect.die(error))
        )

    /** What the widget draws: the token's settings and the agent's name (`GET /public/embed/config/{token}`). */
    const config = Effect.fn("Embeds.config")(function*(value: string, visitor: Visitor) {
      const { agent, token } = yield* usable(value, visitor)
      yield* throttle("config", token, visitor, VISITOR_CONFIG_READS)
      const settings = token.settings ?? {}
      return {
        workflow_id: agent.id,
        agent_name: agent.name,
        settings,
        ...widgetConfig(settings),
        turn_enabled: false,
        force_turn_relay: false
      } satisfies EmbedConfig
    })

    /**
     * Opens a visitor's session (`POST /public/embed/init`): a run of the agent's published version and
     * a session token, counted against the token's usage limit, in one transaction.
     */
    const init = Effect.fn("Embeds.init")(function*(request: InitEmbedRequest, visitor: Visitor) {
      const variables = request.context_variables ?? {}
      const problems = contextProblems(variables)
      if (problems.length > 0) {
        return yield* new InvalidEmbedRequest({
          issues: problems.map((p) => ({ loc: ["body", "context_variables", ...(p.key === "" ? [] : [p.key])], message: p.message, input: p.key === "" ? null : variables[p.key] }))
        })
      }
      const { agent, token } = yield* usable(request.token, visitor)
      yield* throttle("session", token, visitor, VISITOR_SESSIONS)
      const look = widgetConfig(token.settings ?? {})
      const modality = look.widget_type === "chat" ? "text" as const : "voice" as const
      const mode = EMBED_RUN_MODE[look.widget_type]
      const at = yield* now
      const sessionToken = `emb_session_${Crypto.randomBytes(32).toString("base64url")}`
      const expiresAt = iso(at.millis + SESSION_TTL_MILLIS)
      const run = yield* transactor.withTransaction(Effect.gen(function*() {
        if (!(yield* repo.reserveUse(token.id))) return yield* new EmbedUsageLimitReached()
        const inserted = yield* runs.insert({
          organization_id: OrganizationId.make(token.organization_id),
          workflow_id: WorkflowId.make(agent.id),
          campaign_id: null,
          definition_id: DefinitionId.make(agent.definition_id),
          name: `WR-EMBED-${Crypto.randomBytes(4).toString("hex").toUpperCase()}`,
          mode,
          call_type: "inbound",
          initial_context: { ...variables, provider: mode, direction: "inbound" },
          gathered_context: null,
          logs: null,
          now: at.iso
        })
        yield* runs.update(inserted.id, { annotations: { embed: { source: "embed_widget", modality } } }, at.iso)
        yield* repo.insertSession({
          token_hash: sha256(sessionToken),
          embed_token_id: token.id,
          organization_id: token.organization_id,
          workflow_id: agent.id,
          definition_id: agent.definition_id,
          workflow_run_id: inserted.id,
          modality,
          origin: visitor.origin?.slice(0, 255) ?? null,
          client_address: visitor.address === UNKNOWN_ADDRESS ? null : visitor.address,
          user_agent: visitor.userAgent?.slice(0, 500) ?? null,
          created_at: at.iso,
          expires_at: expiresAt
        })
        return inserted
      }))
      return {
        session_token: sessionToken,
        workflow_run_id: RunId.make(run.id),
        config: { workflow_id: agent.id, workflow_run_id: run.id, turn_enabled: false, force_turn_relay: false, ...(token.settings ?? {}) },
        widget_type: look.widget_type,
        chat_session: null,
        expires_at: expiresAt
      } satisfies InitEmbedResponse
    })

    return { tokenFor, saveToken, revoke, config, init, allows } as const
  })
}) {}
