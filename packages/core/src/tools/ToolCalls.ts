/**
 * Calling an organization's tools (transport-agnostic: phone, browser and text conversations alike).
 *
 * Given a tool and a model's arguments: check the arguments against the tool's parameters, render the
 * request, call it within the tool's timeout, and answer what the model is given plus a record of the
 * call for the run's timeline and usage (`ToolResults.ts`). A call never fails: invalid arguments, a
 * refused address, a deleted credential, a timeout, an unreachable server or an error status are
 * results the model can speak about.
 *
 * `forNode` is what a conversation runtime needs: the tools a node lists, each as a function the model
 * is offered (name, description, JSON Schema of its parameters, what to say while waiting) with its call.
 */
import type { DiscoveredMcpTool, HttpApiConfig, McpToolConfig } from "@agentline/api/tools/Tools"
import { DEFAULT_MCP_TIMEOUT_SECS, DEFAULT_TOOL_TIMEOUT_MS, TOOL_RESPONSE_MAX_BYTES } from "@agentline/api/tools/Tools"
import { Clock, Duration, Effect, Either, Option } from "effect"
import { CredentialsRepo } from "../credentials/CredentialsRepo.js"
import { resolveHeaders } from "../credentials/Credentials.js"
import { SecretBox } from "../crypto/SecretBox.js"
import { iso } from "../Time.js"
import { OutboundTargets, refusedTarget } from "../OutboundTargets.js"
import { transitionToolName } from "../workflows/WorkflowDefinition.js"
import { checkArguments, type JsonSchema, parametersSchema } from "./ParameterSchemas.js"
import { type CallContext, EMPTY_CONTEXT, presetValues, type RenderedRequest, renderRequest } from "./ToolRequests.js"
import { bodyValue, errorResult, type ModelResult, successResult, type ToolCallErrorKind, type ToolCallRecord } from "./ToolResults.js"
import { type StoredTool, ToolsRepo } from "./ToolsRepo.js"
import { type McpServerAddress, type McpToolAnswer, ToolTransport } from "./ToolTransport.js"

/** What the agent says while a tool runs: text, or a recording (its text said when it cannot be played). */
export type ToolWaitingMessage =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Recording"; readonly recordingId: string; readonly fallbackText: string | undefined }

/** A request as it was sent, credential headers masked: what the test endpoint shows. */
export interface SentRequest extends RenderedRequest {}

export interface ToolCallOutcome {
  /** What the model is given (JSON text, at most `TOOL_RESULT_MAX_CHARS`). */
  readonly result: string
  readonly record: ToolCallRecord
  /** The request made; null when none was (invalid arguments, a refused address, an MCP call). */
  readonly request: SentRequest | null
  /** The answer as a value (JSON when it was JSON), for showing; null without one. */
  readonly data: unknown
}

export interface ToolCallOptions {
  /** The call's context, for preset parameters and `{{initial_context.x}}` placeholders. */
  readonly context?: CallContext
  /** Preset parameters' values that replace their templates (a test's `preset_params`). */
  readonly presetValues?: Readonly<Record<string, unknown>>
}

/** One function a model is offered at a node, with its call. */
export interface OfferedTool {
  /** The function's name, unique among the node's tools. */
  readonly name: string
  readonly description: string
  /** A JSON Schema of an object. */
  readonly parameters: JsonSchema
  readonly waiting: ToolWaitingMessage | undefined
  readonly toolUuid: string
  readonly call: (args: unknown, context?: CallContext) => Effect.Effect<ToolCallOutcome>
}

export interface NodeTools {
  readonly tools: ReadonlyArray<OfferedTool>
  /** Tools the node lists that are not offered, and why (for the run's log). */
  readonly skipped: ReadonlyArray<{ readonly tool_uuid: string; readonly reason: string }>
}

/** The longest a function name may be (what function-calling APIs accept). */
export const MAX_FUNCTION_NAME = 64

/** The name a model calls an HTTP tool by: its name lower-cased, every character but a-z and 0-9 made `_`. */
export const functionName = (toolName: string): string => transitionToolName(toolName).slice(0, MAX_FUNCTION_NAME)

/** The name a model calls an MCP server's tool by: the server's name for it, made safe for function calling. */
export const mcpFunctionName = (name: string): string => name.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, MAX_FUNCTION_NAME)

/** The MCP server's tools a node may offer: those the tool's `tools_filter` and the node's filter allow. */
export const allowedMcpTools = (config: McpToolConfig, nodeFilter: ReadonlyArray<string> | undefined): ReadonlyArray<DiscoveredMcpTool> =>
  config.discovered_tools.filter((t) =>
    (config.tools_filter.length === 0 || config.tools_filter.includes(t.name)) && (nodeFilter === undefined || nodeFilter.includes(t.name))
  )

const waitingMessage = (config: HttpApiConfig): ToolWaitingMessage | undefined => {
  const text = (config.customMessage ?? "").trim() === "" ? undefined : config.customMessage!
  if (config.customMessageType === "audio" && (config.customMessageRecordingId ?? "").trim() !== "") {
    return { _tag: "Recording", recordingId: config.customMessageRecordingId!, fallbackText: text }
  }
  return text === undefined ? undefined : { _tag: "Text", text }
}

const MASK = "********"

/** An MCP result's content as a value: its structured content, or its text (JSON when it is JSON). */
const mcpData = (answer: McpToolAnswer): unknown => {
  if (answer.structuredContent !== undefined && answer.structuredContent !== null) return answer.structuredContent
  const texts = answer.content.map((block) => {
    const b = typeof block === "object" && block !== null ? block as Record<string, unknown> : {}
    if (b.type === "text" && typeof b.text === "string") return b.text
    if (b.type === "resource" && typeof b.resource === "object" && b.resource !== null) {
      const resource = b.resource as Record<string, unknown>
      return typeof resource.text === "string" ? resource.text : `[resource ${String(resource.uri ?? "")}]`
    }
    if (b.type === "resource_link") return `[resource ${String(b.uri ?? "")}]`
    return `[${String(b.type ?? "content")} omitted]`
  })
  return texts.length === 1 ? bodyValue(texts[0]!, null) : texts.join("\n")
}

const seconds = (millis: number) => (millis % 1000 === 0 ? `${millis / 1000} seconds` : `${millis} ms`)

export class ToolCalls extends Effect.Service<ToolCalls>()("@agentline/core/ToolCalls", {
  effect: Effect.gen(function*() {
    const transport = yield* ToolTransport
    const credentials = yield* CredentialsRepo
    const box = yield* SecretBox
    const settings = yield* OutboundTargets
    const tools = yield* ToolsRepo

    /** The credential's headers, or why the tool cannot be called. */
    const credentialHeaders = (
      organizationId: number,
      uuid: string | null | undefined
    ): Effect.Effect<Either.Either<Readonly<Record<string, string>>, string>> =>
      uuid === null || uuid === undefined || uuid.trim() === ""
        ? Effect.succeed(Either.right<Readonly<Record<string, string>>>({}))
        : Effect.map(
          resolveHeaders(credentials, box, organizationId, uuid),
          Option.match({
            onNone: () => Either.left("the tool's credential no longer exists; it cannot be called until it is given another"),
            onSome: (headers) => Either.right<Readonly<Record<string, string>>>(headers)
          })
        )

    /** The outcome of a call, from where it ended. */
    const finish = (
      base: Omit<ToolCallRecord, "latency_ms" | "status" | "status_code" | "response_bytes" | "result_chars" | "result_truncated" | "error" | "error_kind">,
      end: {
        readonly result: ModelResult
        readonly latency?: number
        readonly statusCode?: number | null
        readonly bytes?: number
        readonly error?: { readonly kind: ToolCallErrorKind; readonly message: string }
        readonly request?: SentRequest | null
        readonly data?: unknown
      }
    ): ToolCallOutcome => ({
      result: end.result.text,
      request: end.request ?? null,
      data: end.data ?? null,
      record: {
        ...base,
        latency_ms: end.latency ?? 0,
        status: end.error === undefined ? "success" : "error",
        status_code: end.statusCode ?? null,
        response_bytes: end.bytes ?? 0,
        result_chars: end.result.text.length,
        result_truncated: end.result.truncated,
        error: end.error?.message ?? null,
        error_kind: end.error?.kind ?? null
      }
    })

    const failed = (
      base: Parameters<typeof finish>[0],
      kind: ToolCallErrorKind,
      message: string,
      extra: Omit<Parameters<typeof finish>[1], "result" | "error"> = {}
    ) => finish(base, { ...extra, result: errorResult(message, extra.statusCode ?? null, extra.data), error: { kind, message } })

    /** A defect of this server becomes a result too; the call (and the conversation) goes on. Logged. */
    const guarded = (base: Parameters<typeof finish>[0]) => <R>(effect: Effect.Effect<ToolCallOutcome, never, R>) =>
      Effect.catchAllDefect(effect, (defect) =>
        Effect.as(
          Effect.logError("tool call failed unexpectedly", defect),
          failed(base, "internal", "the tool could not be called because of a fault of this server")
        ))

    const callHttp = Effect.fn("ToolCalls.callHttp")(function*(
      tool: StoredTool,
      config: HttpApiConfig,
      args: unknown,
      options: ToolCallOptions = {}
    ) {
      const context = options.context ?? EMPTY_CONTEXT
      const base = {
        tool_uuid: tool.tool_uuid,
        tool_name: tool.name,
        function_name: functionName(tool.name),
        category: "http_api" as const,
        mcp_tool_name: null,
        arguments: args ?? {},
        started_at: iso(yield* Clock.currentTimeMillis)
      }
      return yield* guarded(base)(Effect.gen(function*() {
        const checked = checkArguments(parametersSchema(config.parameters), args)
        if (Either.isLeft(checked)) {
          return failed(base, "invalid_arguments", `invalid arguments: ${checked.left.join("; ")}. Call the tool again with corrected arguments.`)
        }
        const presets = presetValues(config.preset_parameters ?? [], context, options.presetValues)
        if (Either.isLeft(presets)) return failed(base, "preset_missing", `the tool cannot be called in this call: ${presets.left.join("; ")}`)
        const rendered = renderRequest(config, { ...checked.right, ...presets.right }, context)
        if (Either.isLeft(rendered)) return failed(base, "invalid_arguments", `invalid arguments: ${rendered.left}`)
        const request = rendered.right
        const refused = refusedTarget(request.url, settings.allowPrivate)
        if (refused !== undefined) {
          return failed(base, "refused_target", `this server does not call the tool's address: ${refused}`, { request })
        }
        const extra = yield* credentialHeaders(tool.organization_id, config.credential_uuid)
        if (Either.isLeft(extra)) return failed(base, "credential_missing", extra.left, { request })
        const sent: SentRequest = { ...request, headers: { ...request.headers, ...Object.fromEntries(Object.keys(extra.right).map((h) => [h, MASK])) } }
        const timeout = config.timeout_ms ?? DEFAULT_TOOL_TIMEOUT_MS
        const start = yield* Clock.currentTimeMillis
        const answer = yield* transport.http({
          method: request.method,
          url: request.url,
          headers: { ...request.headers, ...extra.right },
          body: request.body === null ? null : JSON.stringify(request.body),
          allowPrivate: settings.allowPrivate,
          maxResponseBytes: TOOL_RESPONSE_MAX_BYTES
        }).pipe(Effect.timeoutOption(Duration.millis(timeout)), Effect.either)
        const latency = (yield* Clock.currentTimeMillis) - start
        if (Either.isLeft(answer)) {
          const kind = answer.left.kind === "refused" ? "refused_target" : "network"
          return failed(base, kind, `the tool could not be reached: ${answer.left.reason}`, { request: sent, latency })
        }
        if (Option.isNone(answer.right)) {
          return failed(base, "timeout", `the tool did not answer within ${seconds(timeout)}`, { request: sent, latency })
        }
        const { body, bytes, contentType, status } = answer.right.value
        const data = bodyValue(body, contentType)
        const end = { request: sent, latency, statusCode: status, bytes, data }
        if (status < 200 || status > 299) return failed(base, "http_status", `the tool answered with HTTP status ${status}`, end)
        return finish(base, { ...end, result: successResult(status, data) })
      }))
    })

    /** The MCP server of a tool, with its credential's headers; or why it cannot be reached. */
    const serverOf = (organizationId: number, config: McpToolConfig): Effect.Effect<Either.Either<McpServerAddress, string>> =>
      Effect.map(credentialHeaders(organizationId, config.credential_uuid), Either.map((headers): McpServerAddress => ({
        url: config.url,
        headers,
        allowPrivate: settings.allowPrivate
      })))

    const mcpTimeout = (config: McpToolConfig) => Duration.seconds(config.timeout_secs ?? DEFAULT_MCP_TIMEOUT_SECS)

    const callMcp = Effect.fn("ToolCalls.callMcp")(function*(
      tool: StoredTool,
      config: McpToolConfig,
      mcpToolName: string,
      args: unknown
    ) {
      const base = {
        tool_uuid: tool.tool_uuid,
        tool_name: tool.name,
        function_name: mcpFunctionName(mcpToolName),
        category: "mcp" as const,
        mcp_tool_name: mcpToolName,
        arguments: args ?? {},
        started_at: iso(yield* Clock.currentTimeMillis)
      }
      return yield* guarded(base)(Effect.gen(function*() {
        const listed = config.discovered_tools.find((t) => t.name === mcpToolName)
        let values: Record<string, unknown> = typeof args === "object" && args !== null && !Array.isArray(args) ? args as Record<string, unknown> : {}
        if (listed !== undefined) {
          const checked = checkArguments(listed.input_schema, args)
          if (Either.isLeft(checked)) {
            // A schema the server sent that cannot be compiled is the server's to enforce.
            if (!checked.left[0]?.startsWith("the tool's parameters cannot be used")) {
              return failed(base, "invalid_arguments", `invalid arguments: ${checked.left.join("; ")}. Call the tool again with corrected arguments.`)
            }
          } else values = checked.right
        }
        const refused = refusedTarget(config.url, settings.allowPrivate)
        if (refused !== undefined) return failed(base, "refused_target", `this server does not call the tool's address: ${refused}`)
        const server = yield* serverOf(tool.organization_id, config)
        if (Either.isLeft(server)) return failed(base, "credential_missing", server.left)
        const start = yield* Clock.currentTimeMillis
        const timeout = mcpTimeout(config)
        const answer = yield* transport.mcpCall(server.right, mcpToolName, values).pipe(Effect.timeoutOption(timeout), Effect.either)
        const latency = (yield* Clock.currentTimeMillis) - start
        const request: SentRequest = {
          method: "POST",
          url: config.url,
          headers: Object.fromEntries(Object.keys(server.right.headers).map((h) => [h, MASK])),
          body: { name: mcpToolName, arguments: values },
          query: null
        }
        if (Either.isLeft(answer)) {
          const kind = answer.left.kind === "refused" ? "refused_target" : answer.left.kind === "protocol" ? "tool_error" : "network"
          return failed(base, kind, `the tool could not be called: ${answer.left.reason}`, { request, latency })
        }
        if (Option.isNone(answer.right)) {
          return failed(base, "timeout", `the tool did not answer within ${seconds(Duration.toMillis(timeout))}`, { request, latency })
        }
        const result = answer.right.value
        const data = mcpData(result)
        const end = { request, latency, bytes: result.bytes, data }
        if (result.isError) return failed(base, "tool_error", "the tool reported an error", end)
        return finish(base, { ...end, result: successResult(null, data) })
      }))
    })

    /** The MCP server's tools now, or why they could not be listed. */
    const discover = Effect.fn("ToolCalls.discover")(function*(
      organizationId: number,
      config: McpToolConfig,
      within?: Duration.Duration
    ): Effect.fn.Return<Either.Either<ReadonlyArray<DiscoveredMcpTool>, string>> {
      const refused = refusedTarget(config.url, settings.allowPrivate)
      if (refused !== undefined) return Either.left(`this server does not call the tool's address: ${refused}`)
      const server = yield* serverOf(organizationId, config)
      if (Either.isLeft(server)) return Either.left(server.left)
      const timeout = within ?? mcpTimeout(config)
      const listed = yield* transport.mcpTools(server.right).pipe(Effect.timeoutOption(timeout), Effect.either)
      if (Either.isLeft(listed)) return Either.left(`the MCP server could not be listed: ${listed.left.reason}`)
      if (Option.isNone(listed.right)) return Either.left(`the MCP server did not answer within ${seconds(Duration.toMillis(timeout))}`)
      return Either.right(listed.right.value.map((t): DiscoveredMcpTool => ({ name: t.name, description: t.description, input_schema: { ...t.inputSchema } })))
    })

    /**
     * The functions a node offers its model: its tools (`tool_uuids`, in order) that are active, an MCP
     * server's tools narrowed by the node's `mcp_tool_filters` (by the tool's uuid). A tool that is
     * gone, archived, or whose function name another one already has is skipped, with the reason.
     */
    const forNode = Effect.fn("ToolCalls.forNode")(function*(
      organizationId: number,
      toolUuids: ReadonlyArray<string>,
      mcpFilters: Readonly<Record<string, ReadonlyArray<string>>> = {}
    ) {
      const stored = new Map((yield* tools.findMany(organizationId, toolUuids)).map((t) => [t.tool_uuid, t]))
      const offered: Array<OfferedTool> = []
      const skipped: Array<{ readonly tool_uuid: string; readonly reason: string }> = []
      const taken = new Set<string>()
      const offer = (tool: StoredTool, candidate: OfferedTool) => {
        if (taken.has(candidate.name)) {
          skipped.push({ tool_uuid: tool.tool_uuid, reason: `another tool of this node is already called ${candidate.name}` })
          return
        }
        taken.add(candidate.name)
        offered.push(candidate)
      }
      for (const uuid of new Set(toolUuids)) {
        const tool = stored.get(uuid)
        if (tool === undefined) {
          skipped.push({ tool_uuid: uuid, reason: "the tool does not exist in this organization" })
          continue
        }
        if (tool.status !== "active") {
          skipped.push({ tool_uuid: uuid, reason: `the tool ${tool.name} is archived` })
          continue
        }
        const definition = tool.definition
        if (definition.type === "http_api") {
          const config = definition.config
          offer(tool, {
            name: functionName(tool.name),
            description: tool.description ?? tool.name,
            parameters: parametersSchema(config.parameters),
            waiting: waitingMessage(config),
            toolUuid: tool.tool_uuid,
            call: (args, context) => callHttp(tool, config, args, context === undefined ? {} : { context })
          })
        } else {
          const config = definition.config
          for (const listed of allowedMcpTools(config, mcpFilters[uuid])) {
            offer(tool, {
              name: mcpFunctionName(listed.name),
              description: listed.description ?? listed.name,
              parameters: listed.input_schema.type === "object" ? listed.input_schema : { type: "object", properties: {} },
              waiting: undefined,
              toolUuid: tool.tool_uuid,
              call: (args) => callMcp(tool, config, listed.name, args)
            })
          }
        }
      }
      return { tools: offered, skipped } satisfies NodeTools
    })

    return { callHttp, callMcp, discover, forNode } as const
  })
}) {}
