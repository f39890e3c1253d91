/**
 * One agent: its name, status and version (draft or published, and publishing), its UUID and trigger
 * URLs (with copy buttons), archive / restore, duplicate (a new agent from its latest content), and its
 * sub-pages: the graph editor with a text chat panel and a web call panel ("Talk") beside it, settings (name,
 * template variables, configurations), versions, runs and a test call.
 */
import type { Workflow } from "@agentline/api/workflows/Workflow"
import { WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { useState } from "react"
import { NavLink, Route, Routes, useNavigate, useParams } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { RunsTable } from "../runs/RunsTable.js"
import { AgentSettings } from "./AgentSettings.js"
import { ChatPanel } from "./ChatPanel.js"
import { Editor } from "./Editor.js"
import { PublishPanel } from "./Publish.js"
import { TalkPanel } from "./TalkPanel.js"
import { TestCall } from "./TestCall.js"
import { Versions } from "./Versions.js"
import { apiUrl, Badge, Copyable, Loading, routeId } from "./ui.js"

/** The trigger paths of the definition's API trigger nodes, with their node names. */
export const triggerPaths = (workflow: Workflow): ReadonlyArray<{ readonly name: string; readonly path: string }> => {
  const nodes = Array.isArray(workflow.workflow_definition.nodes) ? workflow.workflow_definition.nodes : []
  return nodes.flatMap((node: unknown) => {
    const n = node as { type?: unknown; data?: { trigger_path?: unknown; name?: unknown } }
    return n.type === "trigger" && typeof n.data?.trigger_path === "string" && n.data.trigger_path !== ""
      ? [{ name: typeof n.data.name === "string" ? n.data.name : "API trigger", path: n.data.trigger_path }]
      : []
  })
}

export const AgentPage = () => {
  const id = routeId(useParams().agentId)
  if (id === undefined) return <p className="error" role="alert">This is not an agent's address.</p>
  return <LoadedAgent id={WorkflowId.make(id)} />
}

const LoadedAgent = ({ id }: { readonly id: WorkflowId }) => {
  const workflow = useApi(() => client.workflows.get({ path: { workflow_id: id } }), [id])
  const setStatus = useAction((status: "active" | "archived") => client.workflows.setStatus({ path: { workflow_id: id }, payload: { status } }))
  const duplicate = useAction(() => client.workflowOperations.duplicate({ path: { workflow_id: id } }))
  const navigate = useNavigate()
  // What the last save did: kept here, since the editor and settings start afresh on the new version.
  const [saved, setSaved] = useState<string | null>(null)
  const [editing, setEditing] = useState(false)
  const onSaved = (message: string) => {
    setSaved(message)
    workflow.reload()
  }
  if (workflow.data === undefined) {
    return workflow.error !== undefined ? <ApiError error={workflow.error} /> : <Loading what="the agent" />
  }
  const agent = workflow.data
  const toggle = async () => {
    const result = await setStatus.run(agent.status === "active" ? "archived" : "active")
    if (Either.isRight(result)) workflow.reload()
  }
  const copy = async () => {
    const result = await duplicate.run()
    if (Either.isRight(result)) navigate(`/agents/${result.right.id}`)
  }
  const triggers = triggerPaths(agent)
  return (
    <section>
      <PageTitle title={`Agent ${agent.name}`}>{agent.name}</PageTitle>
      <div className="agent-header card">
        <p>
          <Badge tone={agent.status === "active" ? "good" : "neutral"}>{agent.status}</Badge>{" "}
          {agent.total_runs ?? 0} runs
        </p>
        <PublishPanel workflow={agent} editing={editing} onPublished={onSaved} />
        {agent.status === "archived" && <p className="notice">This agent is archived: it takes no calls until it is restored.</p>}
        {agent.workflow_uuid !== null && (
          <>
            <Copyable label="Agent UUID" value={agent.workflow_uuid} />
            <Copyable label="Call URL" value={apiUrl(`/public/agent/workflow/${agent.workflow_uuid}`)} />
            <Copyable label="Test call URL (runs the draft)" value={apiUrl(`/public/agent/test/workflow/${agent.workflow_uuid}`)} />
          </>
        )}
        {triggers.map((t) => <Copyable key={t.path} label={`Trigger URL (${t.name})`} value={apiUrl(`/public/agent/${t.path}`)} />)}
        {agent.version_status === "draft" && triggers.length > 0 && (
          <p className="hint">
            Trigger URLs answer with the published version: a trigger only in this draft works at{" "}
            <code>/public/agent/test/…</code> until the draft is published.
          </p>
        )}
        <div className="actions">
          <button type="button" className={agent.status === "active" ? "danger" : undefined} onClick={toggle} disabled={setStatus.pending}>
            {agent.status === "active" ? "Archive agent" : "Restore agent"}
          </button>
          <button type="button" onClick={copy} disabled={duplicate.pending}>{duplicate.pending ? "Duplicating…" : "Duplicate"}</button>
        </div>
        <ApiError error={setStatus.error} />
        <ApiError error={duplicate.error} title="Not duplicated" />
      </div>
      <p role="status" className={saved === null ? undefined : "success"}>{saved ?? ""}</p>
      <nav className="subnav" aria-label="Agent">
        <ul>
          <li><NavLink end to={`/agents/${id}`}>Editor</NavLink></li>
          <li><NavLink to={`/agents/${id}/settings`}>Variables and settings</NavLink></li>
          <li><NavLink to={`/agents/${id}/versions`}>Versions</NavLink></li>
          <li><NavLink to={`/agents/${id}/runs`}>Runs</NavLink></li>
          <li><NavLink to={`/agents/${id}/test-call`}>Test call</NavLink></li>
        </ul>
      </nav>
      <Routes>
        <Route
          index
          element={
            <div className="editor-with-chat">
              <Editor key={agent.version_number ?? 0} workflow={agent} onSaved={onSaved} onDirtyChange={setEditing} />
              <div className="side-panels">
                <ChatPanel workflow={agent} />
                <TalkPanel workflow={agent} />
              </div>
            </div>
          }
        />
        <Route path="settings" element={<AgentSettings key={agent.version_number ?? 0} workflow={agent} onSaved={onSaved} />} />
        <Route path="versions" element={<Versions workflow={agent} onSaved={onSaved} />} />
        <Route path="runs" element={<RunsTable source={{ kind: "agent", workflowId: id }} />} />
        <Route path="test-call" element={<TestCall workflow={agent} />} />
      </Routes>
    </section>
  )
}
