/**
 * The organization's tools (the reference's `/tools`): created, listed, updated, archived and
 * unarchived; tested with sample arguments; an MCP server's catalog refreshed. A definition is checked
 * as a whole on every save (`ToolChecks.ts`, plus its credential and recording in this organization):
 * the answer names every field at fault.
 */
import type { Principal } from "@agentline/api/Authentication"
import type {
  CreateToolRequest,
  DiscoveredMcpTool,
  McpRefreshResponse,
  Tool,
  ToolDefinition,
  ToolTestRequest,
  ToolTestResponse,
  UpdateToolRequest
} from "@agentline/api/tools/Tools"
import { Clock, Duration, Effect, Either, Option } from "effect"
import * as Crypto from "node:crypto"
import { CredentialsRepo } from "../credentials/CredentialsRepo.js"
import { RecordingsRepo } from "../recordings/RecordingsRepo.js"
import { iso } from "../Time.js"
import { OutboundTargets } from "../OutboundTargets.js"
import { InvalidTool, NotAnMcpTool, type ToolIssue, ToolNotFound } from "./Errors.js"
import { definitionIssues } from "./ToolChecks.js"
import { ToolCalls, type ToolCallOutcome, functionName } from "./ToolCalls.js"
import type { ToolCallErrorKind } from "./ToolResults.js"
import { type StoredTool, ToolsRepo } from "./ToolsRepo.js"

/** How long creating or re-pointing an MCP tool waits for its server's catalog (`mcp/refresh` waits the tool's timeout). */
export const DISCOVERY_ON_SAVE = Duration.seconds(5)

const wire = ({ organization_id: _, ...tool }: StoredTool): Tool => tool

/** What to do about a failed test, when there is something to do. */
const hints: Partial<Record<ToolCallErrorKind, string>> = {
  invalid_arguments: "llm_params must fit the tool's parameters; the model is told the same and may call again",
  preset_missing: "pass the preset's value in preset_params (in a call it comes from the call's context)",
  refused_target: "the address is private, loopback or link-local; an operator can allow such addresses with AGENTLINE_WEBHOOK_ALLOW_PRIVATE=true",
  credential_missing: "give the tool one of the organization's credentials, or none",
  timeout: "make the endpoint answer sooner, or raise the tool's timeout (timeout_ms, at most 60000; timeout_secs for MCP)",
  network: "check the URL, and that the server is up and reachable from this server"
}

const hintOf = (outcome: ToolCallOutcome): string | null => {
  const kind = outcome.record.error_kind
  if (kind === null) return null
  if (kind === "http_status" && (outcome.record.status_code === 401 || outcome.record.status_code === 403)) {
    return "the endpoint refused the request: check the tool's credential"
  }
  return hints[kind] ?? null
}

export class Tools extends Effect.Service<Tools>()("@agentline/core/Tools", {
  effect: Effect.gen(function*() {
    const repo = yield* ToolsRepo
    const credentials = yield* CredentialsRepo
    const recordings = yield* RecordingsRepo
    const settings = yield* OutboundTargets
    const calls = yield* ToolCalls

    const found = (principal: Principal, uuid: string) =>
      Effect.flatMap(
        repo.find(principal.organizationId, uuid),
        Option.match({ onNone: () => Effect.fail(new ToolNotFound({ toolUuid: uuid })), onSome: Effect.succeed })
      )

    /** Every problem with a tool's name and definition, its credential and recording included. */
    const problems = Effect.fn("Tools.problems")(function*(principal: Principal, name: string | undefined, definition: ToolDefinition | undefined) {
      const issues: Array<ToolIssue> = []
      if (name !== undefined && /^_*$/.test(functionName(name))) {
        issues.push({ loc: ["name"], message: "name must contain a letter or digit (the model calls the tool by it)", input: name })
      }
      if (definition === undefined) return issues
      issues.push(...definitionIssues(definition, settings.allowPrivate))
      const credential = definition.config.credential_uuid
      if (typeof credential === "string" && credential.trim() !== "") {
        if (Option.isNone(yield* credentials.find(principal.organizationId, credential))) {
          issues.push({
            loc: ["definition", "config", "credential_uuid"],
            message: `credential '${credential}' does not exist in this organization`,
            input: credential
          })
        }
      }
      if (definition.type === "http_api" && definition.config.customMessageType === "audio") {
        const recording = (definition.config.customMessageRecordingId ?? "").trim()
        if (recording !== "" && (yield* recordings.findActive(principal.organizationId, [recording])).length === 0) {
          issues.push({
            loc: ["definition", "config", "customMessageRecordingId"],
            message: `recording '${recording}' does not exist in this organization; upload it first or choose another`,
            input: recording
          })
        }
      }
      return issues
    })

    const refuseProblems = (issues: ReadonlyArray<ToolIssue>) => (issues.length > 0 ? Effect.fail(new InvalidTool({ issues })) : Effect.void)

    /** An MCP definition with the server's catalog: listed now (within `DISCOVERY_ON_SAVE`) unless `kept`. */
    const withCatalog = Effect.fn("Tools.withCatalog")(function*(
      principal: Principal,
      definition: ToolDefinition,
      kept: ReadonlyArray<DiscoveredMcpTool> | undefined
    ) {
      if (definition.type !== "mcp") return definition
      const catalog = kept ?? Either.getOrElse(yield* calls.discover(principal.organizationId, definition.config, DISCOVERY_ON_SAVE), () => [])
      return { ...definition, config: { ...definition.config, discovered_tools: catalog } }
    })

    const list = Effect.fn("Tools.list")(function*(principal: Principal, filter: { readonly status?: string | undefined; readonly category?: string | undefined }) {
      return (yield* repo.list(principal.organizationId, filter)).map(wire)
    })

    const create = Effect.fn("Tools.create")(function*(principal: Principal, request: CreateToolRequest) {
      const issues = yield* problems(principal, request.name, request.definition)
      if (request.category !== undefined && request.category !== request.definition.type) {
        issues.unshift({ loc: ["category"], message: `category must be the definition's type ('${request.definition.type}')`, input: request.category })
      }
      yield* refuseProblems(issues)
      const stored = yield* repo.insert({
        tool_uuid: Crypto.randomUUID(),
        organization_id: principal.organizationId,
        name: request.name,
        description: request.description,
        category: request.definition.type,
        icon: request.icon,
        icon_color: request.icon_color,
        definition: yield* withCatalog(principal, request.definition, undefined),
        created_by: principal.userId,
        created_at: iso(yield* Clock.currentTimeMillis)
      })
      return wire(stored)
    })

    const get = Effect.fn("Tools.get")(function*(principal: Principal, uuid: string) {
      return wire(yield* found(principal, uuid))
    })

    const update = Effect.fn("Tools.update")(function*(principal: Principal, uuid: string, request: UpdateToolRequest) {
      const current = yield* found(principal, uuid)
      const definition = request.definition ?? undefined
      const issues = yield* problems(principal, request.name ?? undefined, definition)
      if (definition !== undefined && definition.type !== current.category) {
        issues.unshift({
          loc: ["definition", "type"],
          message: `this tool is an ${current.category} tool and stays one; create a new tool for an ${definition.type} one`,
          input: definition.type
        })
      }
      yield* refuseProblems(issues)
      // The catalog is the server's: kept while the tool points at the same server with the same credential.
      const before = current.definition
      const sameServer = definition?.type === "mcp" && before.type === "mcp" && definition.config.url === before.config.url &&
        (definition.config.credential_uuid ?? null) === (before.config.credential_uuid ?? null)
      const updated = yield* repo.update(principal.organizationId, uuid, {
        ...(request.name != null ? { name: request.name } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.icon !== undefined ? { icon: request.icon } : {}),
        ...(request.icon_color !== undefined ? { icon_color: request.icon_color } : {}),
        ...(request.status != null ? { status: request.status } : {}),
        ...(definition !== undefined
          ? { definition: yield* withCatalog(principal, definition, sameServer && before.type === "mcp" ? before.config.discovered_tools : undefined) }
          : {})
      }, iso(yield* Clock.currentTimeMillis))
      return yield* Option.match(updated, { onNone: () => Effect.fail(new ToolNotFound({ toolUuid: uuid })), onSome: (t) => Effect.succeed(wire(t)) })
    })

    const setStatus = (principal: Principal, uuid: string, status: "active" | "archived") =>
      Effect.flatMap(
        Effect.flatMap(Clock.currentTimeMillis, (now) => repo.update(principal.organizationId, uuid, { status }, iso(now))),
        Option.match({ onNone: () => Effect.fail(new ToolNotFound({ toolUuid: uuid })), onSome: Effect.succeed })
      )

    const archive = Effect.fn("Tools.archive")(function*(principal: Principal, uuid: string) {
      const tool = yield* setStatus(principal, uuid, "archived")
      return {
        success: true,
        message: `Tool ${tool.name} archived: agents can no longer list it and calls no longer offer it; unarchive it to restore it`
      }
    })

    const unarchive = Effect.fn("Tools.unarchive")(function*(principal: Principal, uuid: string) {
      return wire(yield* setStatus(principal, uuid, "active"))
    })

    const test = Effect.fn("Tools.test")(function*(principal: Principal, uuid: string, request: ToolTestRequest) {
      const tool = yield* found(principal, uuid)
      const definition = tool.definition
      let outcome: ToolCallOutcome
      if (definition.type === "http_api") {
        outcome = yield* calls.callHttp(tool, definition.config, request.llm_params, { presetValues: request.preset_params })
      } else {
        const name = (request.mcp_tool_name ?? "").trim()
        const known = definition.config.discovered_tools.map((t) => t.name)
        if (name === "") {
          return yield* new InvalidTool({
            issues: [{
              loc: ["mcp_tool_name"],
              message: `mcp_tool_name is required to test an MCP tool: one of the server's tools${
                known.length > 0 ? ` (${known.join(", ")})` : " (refresh the tool to list them)"
              }`,
              input: request.mcp_tool_name ?? null
            }]
          })
        }
        outcome = yield* calls.callMcp(tool, definition.config, name, request.llm_params)
      }
      const sent = outcome.request
      const response: ToolTestResponse = {
        status: outcome.record.status,
        status_code: outcome.record.status_code,
        data: outcome.data,
        error: outcome.record.error,
        hint: hintOf(outcome),
        request_method: sent?.method ?? (definition.type === "http_api" ? definition.config.method : "POST"),
        request_url: sent?.url ?? definition.config.url,
        request_headers: { ...sent?.headers },
        request_body: sent?.body ?? null,
        request_params: sent?.query ?? null,
        duration_ms: outcome.record.latency_ms,
        result: outcome.result,
        result_truncated: outcome.record.result_truncated,
        response_bytes: outcome.record.response_bytes
      }
      return response
    })

    const refreshMcp = Effect.fn("Tools.refreshMcp")(function*(principal: Principal, uuid: string) {
      const tool = yield* found(principal, uuid)
      const definition = tool.definition
      if (definition.type !== "mcp") return yield* new NotAnMcpTool({ toolUuid: uuid, category: tool.category })
      const listed = yield* calls.discover(principal.organizationId, definition.config)
      if (Either.isLeft(listed)) {
        return { tool_uuid: uuid, discovered_tools: definition.config.discovered_tools, error: listed.left } satisfies McpRefreshResponse
      }
      yield* repo.update(principal.organizationId, uuid, {
        definition: { ...definition, config: { ...definition.config, discovered_tools: listed.right } }
      }, iso(yield* Clock.currentTimeMillis))
      return { tool_uuid: uuid, discovered_tools: listed.right, error: null } satisfies McpRefreshResponse
    })

    return { list, create, get, update, archive, unarchive, test, refreshMcp } as const
  })
}) {}
