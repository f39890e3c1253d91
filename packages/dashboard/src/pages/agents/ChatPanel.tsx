/**
 * The chat panel beside the agent editor: a text chat session (`/workflow/{id}/text-chat/sessions`,
 * docs/text-chat.md) with the agent's latest saved version, its draft when it has one. The user sends
 * messages and reads the answers, sees the step the conversation is at and what was extracted, rewinds
 * to any turn (the later ones are dropped), ends the session, or starts a new one (after saving the
 * draft, a new session runs the saved version).
 */
import type { Workflow } from "@agentline/api/workflows/Workflow"
import type { WorkflowRunTextSessionResponse } from "@agentline/api/text-chat/TextChat"
import { RunId, WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { type FormEvent, useEffect, useRef, useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useAction } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"

type Session = typeof WorkflowRunTextSessionResponse.Type

const start = (workflowId: number) => client.textChat.create({ path: { workflow_id: WorkflowId.make(workflowId) }, payload: { name: "Dashboard chat" } })

type Change =
  | { readonly kind: "send"; readonly text: string }
  | { readonly kind: "rewind"; readonly turnId: string }
  | { readonly kind: "end" }

const change = (session: Session, what: Change) => {
  const path = { workflow_id: WorkflowId.make(session.workflow_id), run_id: RunId.make(session.workflow_run_id) }
  const expected_revision = session.revision
  switch (what.kind) {
    case "send":
      return client.textChat.append({ path, payload: { text: what.text, expected_revision } })
    case "rewind":
      return client.textChat.rewind({ path, payload: { cursor_turn_id: what.turnId, expected_revision } })
    case "end":
      return client.textChat.end({ path, payload: { expected_revision } })
  }
}

export const ChatPanel = ({ workflow }: { readonly workflow: Workflow }) => {
  const [session, setSession] = useState<Session | null>(null)
  const [text, setText] = useState("")
  const opening = useAction(start)
  const changing = useAction(change)
  const log = useRef<HTMLOListElement>(null)
  const pending = opening.pending || changing.pending

  useEffect(() => {
    log.current?.scrollTo?.({ top: log.current.scrollHeight })
  }, [session])

  const restart = async () => {
    changing.reset()
    const result = await opening.run(workflow.id)
    if (Either.isRight(result)) setSession(result.right)
  }
  const apply = async (what: Change) => {
    if (session === null) return
    const result = await changing.run(session, what)
    if (Either.isRight(result)) setSession(result.right)
    return result
  }
  const send = async (event: FormEvent) => {
    event.preventDefault()
    const message = text.trim()
    if (message === "" || session === null) return
    const result = await apply({ kind: "send", text: message })
    if (result !== undefined && Either.isRight(result)) setText("")
  }

  const turns = session?.session_data.turns ?? []
  const extracted = Object.entries(session?.gathered_context ?? {}).filter(([key]) => !["end_reason", "disposition", "tags"].includes(key))
  return (
    <aside className="chat-panel card" aria-label="Chat with the agent">
      <h2>Chat with the agent</h2>
      <p className="hint">
        By text with version {workflow.version_number ?? "?"}
        {workflow.version_status === "draft" ? ", the draft" : ", the published version"}; unsaved changes are not in it.
      </p>
      {session === null
        ? (
          <div className="actions">
            <button type="button" className="primary" onClick={restart} disabled={pending}>{opening.pending ? "Starting…" : "Start a chat"}</button>
          </div>
        )
        : (
          <>
            <ol className="chat-log" ref={log} aria-label="Conversation">
              {turns.map((turn, index) => (
                <li key={turn.id} className="chat-turn">
                  {turn.user_message !== null && (
                    <p className={`chat-message user${turn.status === "failed" ? " failed" : ""}`}>
                      <span className="visually-hidden">You: </span>{turn.user_message.text}
                    </p>
                  )}
                  {turn.assistant_message !== null && (
                    <p className="chat-message agent"><span className="visually-hidden">Agent: </span>{turn.assistant_message.text}</p>
                  )}
                  {turn.status === "failed" && <p className="error">The agent did not answer: send again, or rewind.</p>}
                  <p className="chat-meta">
                    <span>{turn.node_name}</span>
                    {index < turns.length - 1 && !session.is_completed && (
                      <button type="button" className="link" onClick={() => apply({ kind: "rewind", turnId: turn.id })} disabled={pending}
                        aria-label={`Rewind to turn ${index + 1}`}>
                        Rewind to here
                      </button>
                    )}
                  </p>
                </li>
              ))}
            </ol>
            <dl className="chat-state">
              <dt>Step</dt>
              <dd>{session.checkpoint.node_name ?? "—"}{session.is_completed ? " (ended)" : ""}</dd>
              {extracted.map(([key, value]) => (
                <div key={key}>
                  <dt>{key}</dt>
                  <dd>{typeof value === "string" ? value : JSON.stringify(value)}</dd>
                </div>
              ))}
            </dl>
            {session.is_completed
              ? <p role="status">The conversation has ended.</p>
              : (
                <form className="chat-form" onSubmit={send}>
                  <label className="visually-hidden" htmlFor="chat-message">Message</label>
                  <input id="chat-message" value={text} onChange={(e) => setText(e.target.value)} maxLength={4000} disabled={pending}
                    placeholder="Type a message…" autoComplete="off" />
                  <button type="submit" className="primary" disabled={pending || text.trim() === ""}>Send</button>
                </form>
              )}
            <ApiError error={changing.error} title="The chat did not change" />
            <div className="actions">
              <button type="button" onClick={restart} disabled={pending}>Restart</button>
              {!session.is_completed && <button type="button" onClick={() => apply({ kind: "end" })} disabled={pending}>End chat</button>}
              <Link to={`/runs/${workflow.id}/${session.workflow_run_id}`}>Open the run</Link>
            </div>
          </>
        )}
      <ApiError error={opening.error} title="The chat was not started" />
    </aside>
  )
}
