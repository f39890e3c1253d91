/**
 * Text chat (docs/text-chat.md): a conversation with an agent's graph by text, recorded as a run. The
 * dashboard's sessions run the agent's latest version (its draft when it has one); an embed session's
 * run names the published version it runs. Each change of a session is one revision: a request may
 * name the revision it read (`expected_revision`) and is refused (409) when another change came first.
 *
 * The run carries what a call's does: the gathered context, the transcript (`logs.transcript` and the
 * `transcript` artifact at the end), usage and cost; at the end it is completed and its post-call work
 * (`run.ended`, the agent's webhook nodes) runs.
 */
import type { Principal } from "@agentline/api/Authentication"
import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { BlobStore } from "@agentline/core/blobs/BlobStore"
import { PostCall } from "@agentline/core/runs/PostCall"
import type { StoredRun } from "@agentline/core/runs/Run"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { TextChatEnded, TextChatNotFound, TextChatRevisionConflict, TextChatUnavailable, TextChatUnknownTurn } from "@agentline/core/text-chat/Errors"
import { TextChatRepo } from "@agentline/core/text-chat/TextChatRepo"
import type { ChatTurn, StoredTextChat, TextChatData } from "@agentline/core/text-chat/TextChatSession"
import { iso } from "@agentline/core/Time"
import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import { WorkflowNotFound } from "@agentline/core/workflows/Errors"
import { WorkflowsRepo } from "@agentline/core/workflows/WorkflowsRepo"
import { Clock, Effect, Either, Option, Stream } from "effect"
import * as Crypto from "node:crypto"
import { endConversation } from "../graph/Conversation.js"
import { type ConversationGraph, conversationGraph } from "../graph/ConversationGraph.js"
import { costOf, Prices } from "../session/Costs.js"
import { AgentLanguageModel } from "../session/LanguageModelTools.js"
import { emptyData, history, rewind as rewound, stateAfter, transcript, transcriptText, view } from "./ChatTurns.js"
import { agentTurn, type AgentTurn, openingTurn } from "./TextAgent.js"

/** The run mode of text chat sessions, as the reference's. */
export const TEXT_CHAT_MODE = "textchat"
/** Why a session the user ended ended. */
export const USER_ENDED = "user_ended_chat"

const turnId = () => `turn_${Crypto.randomBytes(9).toString("base64url")}`

export class TextChat extends Effect.Service<TextChat>()("@agentline/voice/TextChat", {
  effect: Effect.gen(function*() {
    const repo = yield* TextChatRepo
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const blobs = yield* BlobStore
    const postCall = yield* PostCall
    const llm = yield* AgentLanguageModel
    const prices = yield* Prices
    const now = Effect.map(Clock.currentTimeMillis, iso)

    /** The run's version as a graph. */
    const graphOf = (run: StoredRun) =>
      Effect.gen(function*() {
        const versions = yield* workflows.versions(run.organization_id, run.workflow_id)
        const version = versions.find((v) => v.id === run.definition_id) ?? versions.at(-1)
        if (version === undefined) return yield* new TextChatUnavailable({ reason: "The agent has no version to chat with" })
        const { definition, errors } = validateDefinition(version.workflow_definition)
        if (errors.length > 0) return yield* new TextChatUnavailable({ reason: `The agent's definition cannot be run: ${errors[0]!.message}` })
        const graph = conversationGraph(definition)
        if (Either.isLeft(graph)) return yield* new TextChatUnavailable({ reason: `The agent's definition cannot be run: ${graph.left.message}` })
        return graph.right
      })

    /** A turn of the agent's as stored: what it wrote, the conversation after it. */
    const storedTurn = (answered: AgentTurn, userText: string | undefined, at: string): ChatTurn => ({
      id: turnId(),
      status: "completed",
      user_message: userText === undefined ? null : { text: userText, created_at: at },
      assistant_message: answered.said.length === 0 ? null : { text: answered.said.join(" "), created_at: at },
      node_id: answered.state.node.id,
      node_name: answered.state.node.data.name,
      gathered_context: answered.state.gatheredContext,
      ending: answered.state.ending ?? null,
      messages: answered.messages
    })

    /** The run's record of the session: gathered context, transcript, usage and cost; on `completed`, its end. */
    const record = (run: StoredRun, data: TextChatData, completed: boolean, at: string) =>
      Effect.gen(function*() {
        const model = Option.match(llm, { onNone: () => "none", onSome: (m) => m.name })
        const usage = { llm: { [model]: { inputTokens: data.usage.input_tokens, outputTokens: data.usage.output_tokens } }, stt: {}, tts: {} }
        const gathered = data.turns.at(-1)?.gathered_context ?? {}
        const ending = data.turns.at(-1)?.ending ?? null
        const artifacts = completed
          ? yield* blobs.put(
            `${run.organization_id}/runs/${run.id}/transcript.txt`,
            Stream.make(new TextEncoder().encode(transcriptText(data.turns))),
            { maxBytes: 10 * 1024 * 1024, contentType: "text/plain; charset=utf-8" }
          ).pipe(
            Effect.as({ transcript: `${run.organization_id}/runs/${run.id}/transcript.txt` }),
            Effect.catchAll((error) => Effect.as(Effect.logError("Could not store the chat's transcript", error), {}))
          )
          : {}
        yield* runs.update(run.id, {
          ...(completed ? { is_completed: true } : {}),
          artifacts,
          gathered_context: { ...gathered, ...(ending !== null ? { end_reason: ending } : {}) },
          merge: {
            logs: { transcript: transcript(data.turns), text_chat_turns: data.turns.length },
            usage_info: {
              llm: { [model]: { prompt_tokens: data.usage.input_tokens, completion_tokens: data.usage.output_tokens, total_tokens: data.usage.input_tokens + data.usage.output_tokens } }
            },
            cost_info: costOf(prices, usage)
          }
        }, at)
        if (completed) yield* postCall.complete(run.id)
      })

    /** Starts the session of `run` with the agent's opening; the existing one if another request started it first. */
    const start = Effect.fn("TextChat.start")(function*(run: StoredRun) {
      const existing = yield* repo.find(run.organization_id, run.id)
      if (Option.isSome(existing)) return existing.value
      const graph = yield* graphOf(run)
      const opened = yield* openingTurn(Option.getOrUndefined(Option.map(llm, (m) => m.model)), graph, run.initial_context ?? {}).pipe(
        Effect.catchAll((error) => Effect.as(Effect.logError("The language model's opening failed", error), undefined))
      )
      const at = yield* now
      const opening: ChatTurn = opened !== undefined
        ? storedTurn(opened, undefined, at)
        : { ...storedTurn({ state: stateAfter(graph, [], {}), said: [], messages: [], usage: { input_tokens: 0, output_tokens: 0 }, events: [] }, undefined, at), status: "failed", error: "the language model failed" }
      const data: TextChatData = { turns: [opening], usage: opened?.usage ?? emptyData.usage }
      const completed = opening.ending !== null
      const inserted = yield* repo.insert({
        workflow_run_id: run.id,
        organization_id: run.organization_id,
        workflow_id: run.workflow_id,
        revision: 1,
        state: completed ? "completed" : "active",
        data,
        created_at: at
      })
      if (Option.isNone(inserted)) return yield* Effect.flatMap(repo.find(run.organization_id, run.id), Option.match({ onNone: () => Effect.die("text chat session vanished"), onSome: Effect.succeed }))
      yield* record(run, data, completed, at)
      return inserted.value
    })

    /** Writes a change made from `session`'s revision; 409 when another change came first. */
    const save = (run: StoredRun, session: StoredTextChat, data: TextChatData, completed: boolean) =>
      Effect.gen(function*() {
        const at = yield* now
        const saved = yield* repo.save(run.id, session.revision, { state: completed ? "completed" : "active", data, now: at })
        if (Option.isNone(saved)) {
          const current = yield* repo.find(run.organization_id, run.id)
          return yield* new TextChatRevisionConflict({ expected: session.revision, current: Option.match(current, { onNone: () => -1, onSome: (s) => s.revision }) })
        }
        yield* record(run, data, completed, at)
        return saved.value
      })

    const checkRevision = (session: StoredTextChat, expected: number | null | undefined) =>
      expected !== undefined && expected !== null && expected !== session.revision
        ? Effect.fail(new TextChatRevisionConflict({ expected, current: session.revision }))
        : Effect.void

    /** The user says `text`; the agent answers at the conversation's node. */
    const appendTo = Effect.fn("TextChat.append")(function*(run: StoredRun, session: StoredTextChat, text: string, expected: number | null | undefined) {
      yield* checkRevision(session, expected)
      if (session.state === "completed") return yield* new TextChatEnded()
      if (Option.isNone(llm)) return yield* new TextChatUnavailable({ reason: "No language model is configured (AGENTLINE_LLM): the agent cannot answer" })
      const graph: ConversationGraph = yield* graphOf(run)
      const turns = session.data.turns
      const state = stateAfter(graph, turns, run.initial_context ?? {})
      const answered = yield* Effect.either(agentTurn(llm.value.model, graph, state, history(turns), text))
      const at = yield* now
      const turn: ChatTurn = Either.isRight(answered)
        ? storedTurn(answered.right, text, at)
        : {
          // The model failed: the user's words are kept, the conversation stays where it was (send again, or rewind).
          ...storedTurn({ state, said: [], messages: [], usage: { input_tokens: 0, output_tokens: 0 }, events: [] }, text, at),
          status: "failed",
          error: `the language model failed: ${String(answered.left).slice(0, 300)}`
        }
      const usage = Either.isRight(answered) ? answered.right.usage : { input_tokens: 0, output_tokens: 0 }
      const data: TextChatData = {
        turns: [...turns, turn],
        usage: { input_tokens: session.data.usage.input_tokens + usage.input_tokens, output_tokens: session.data.usage.output_tokens + usage.output_tokens }
      }
      return yield* save(run, session, data, turn.ending !== null)
    })

    /** Ends the session: the run is completed, as a call's at hang-up. */
    const endSession = Effect.fn("TextChat.end")(function*(run: StoredRun, session: StoredTextChat, expected: number | null | undefined) {
      yield* checkRevision(session, expected)
      if (session.state === "completed") return session
      const graph = yield* graphOf(run)
      const turns = session.data.turns
      const ended = endConversation(stateAfter(graph, turns, run.initial_context ?? {}), USER_ENDED)
      const last = turns.at(-1)
      const closing = last === undefined ? turns : [...turns.slice(0, -1), { ...last, gathered_context: ended.gatheredContext, ending: USER_ENDED }]
      return yield* save(run, session, { ...session.data, turns: closing }, true)
    })

    const rewindSession = Effect.fn("TextChat.rewind")(function*(run: StoredRun, session: StoredTextChat, cursor: string | null | undefined, expected: number | null | undefined) {
      yield* checkRevision(session, expected)
      if (session.state === "completed") return yield* new TextChatEnded()
      const data = rewound(session.data, cursor ?? null)
      if (Either.isLeft(data)) return yield* new TextChatUnknownTurn({ turnId: cursor ?? "" })
      return yield* save(run, session, data.right, false)
    })

    // The organization's side: sessions of its agents, by run.

    const runOf = (principal: Principal, workflowId: number, runId: number) =>
      Effect.gen(function*() {
        const run = yield* runs.find(principal.organizationId, runId)
        if (Option.isNone(run) || run.value.workflow_id !== workflowId) return yield* new TextChatNotFound({ runId })
        const session = yield* repo.find(principal.organizationId, runId)
        if (Option.isNone(session)) return yield* new TextChatNotFound({ runId })
        return { run: run.value, session: session.value }
      })

    /** A new session with the agent's latest version (its draft when it has one). */
    const create = Effect.fn("TextChat.create")(function*(
      principal: Principal,
      workflowId: number,
      request: { readonly name?: string | null | undefined; readonly initial_context?: Record<string, unknown> | null | undefined; readonly annotations?: Record<string, unknown> | null | undefined }
    ) {
      const agent = yield* workflows.find(principal.organizationId, workflowId, "latest")
      if (Option.isNone(agent)) return yield* new WorkflowNotFound({ workflowId })
      const at = yield* now
      const run = yield* runs.insert({
        organization_id: OrganizationId.make(principal.organizationId),
        workflow_id: WorkflowId.make(workflowId),
        campaign_id: null,
        definition_id: DefinitionId.make(agent.value.definition_id),
        name: request.name?.trim() || `WR-CHAT-${Crypto.randomBytes(4).toString("hex").toUpperCase()}`,
        mode: TEXT_CHAT_MODE,
        call_type: "inbound",
        initial_context: { ...agent.value.template_context_variables, ...request.initial_context, provider: TEXT_CHAT_MODE, direction: "inbound" },
        gathered_context: null,
        logs: null,
        now: at
      })
      const annotated = yield* runs.update(run.id, { annotations: { ...request.annotations, text_chat: { source: "api" } } }, at)
      const session = yield* start(Option.getOrElse(annotated, () => run))
      return view(Option.getOrElse(yield* runs.find(principal.organizationId, run.id), () => run), session)
    })

    const get = Effect.fn("TextChat.get")(function*(principal: Principal, workflowId: number, runId: number) {
      const { run, session } = yield* runOf(principal, workflowId, runId)
      return view(run, session)
    })

    const reread = (principal: Principal, runId: number, session: StoredTextChat) =>
      Effect.map(runs.find(principal.organizationId, runId), (run) => Option.getOrThrow(run)).pipe(Effect.map((run) => view(run, session)))

    const append = (principal: Principal, workflowId: number, runId: number, request: { readonly text: string; readonly expected_revision?: number | null | undefined }) =>
      Effect.gen(function*() {
        const { run, session } = yield* runOf(principal, workflowId, runId)
        return yield* reread(principal, runId, yield* appendTo(run, session, request.text, request.expected_revision))
      })

    const end = (principal: Principal, workflowId: number, runId: number, request: { readonly expected_revision?: number | null | undefined }) =>
      Effect.gen(function*() {
        const { run, session } = yield* runOf(principal, workflowId, runId)
        return yield* reread(principal, runId, yield* endSession(run, session, request.expected_revision))
      })

    const rewind = (
      principal: Principal,
      workflowId: number,
      runId: number,
      request: { readonly cursor_turn_id?: string | null | undefined; readonly expected_revision?: number | null | undefined }
    ) =>
      Effect.gen(function*() {
        const { run, session } = yield* runOf(principal, workflowId, runId)
        return yield* reread(principal, runId, yield* rewindSession(run, session, request.cursor_turn_id, request.expected_revision))
      })

    return { create, get, append, end, rewind, start, appendTo, endSession } as const
  })
}) {}
