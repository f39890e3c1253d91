/**
 * The agents list (status, version, runs) and the forms that create an agent: from a built-in template,
 * or blank with a name and what the agent says first; the rest is built in the editor.
 */
import type { WorkflowListItem } from "@agentline/api/workflows/Workflow"
import { WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { Link, useNavigate } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { defaultNodeData } from "./definitionGraph.js"
import { Badge, Field, formatDate, Loading } from "./ui.js"

export const AgentList = () => {
  const [show, setShow] = useState<"active" | "archived" | "active,archived">("active")
  const agents = useApi(() => client.workflows.list({ urlParams: { status: show } }), [show])
  return (
    <section>
      <PageTitle>Agents</PageTitle>
      <div className="toolbar">
        <Link className="button primary" to="new">New agent</Link>
        <Field label="Show">
          {(props) => (
            <select {...props} value={show} onChange={(e) => setShow(e.target.value as typeof show)}>
              <option value="active">Active agents</option>
              <option value="archived">Archived agents</option>
              <option value="active,archived">All agents</option>
            </select>
          )}
        </Field>
      </div>
      <ApiError error={agents.error} />
      {agents.data === undefined ? (agents.error === undefined && <Loading what="agents" />) : agents.data.length === 0 ? (
        <p>No agents yet. <Link to="new">Create your first agent</Link>.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Agents</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">Runs</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {agents.data.map((agent) => <AgentRow key={agent.id} agent={agent} />)}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

/** One row; the version comes from the agent itself (the list does not carry it). */
const AgentRow = ({ agent }: { readonly agent: WorkflowListItem }) => {
  const detail = useApi(() => client.workflows.get({ path: { workflow_id: agent.id } }), [agent.id])
  return (
    <tr>
      <td data-label="Name"><Link to={String(agent.id)}>{agent.name}</Link></td>
      <td data-label="Status"><Badge tone={agent.status === "active" ? "good" : "neutral"}>{agent.status}</Badge></td>
      <td data-label="Version">
        {detail.data?.version_number ?? (detail.error !== undefined ? "?" : "…")}
        {detail.data?.version_status === "draft" && <> <Badge tone="warn">draft</Badge></>}
      </td>
      <td data-label="Runs">{agent.total_runs}</td>
      <td data-label="Created">{formatDate(agent.created_at)}</td>
    </tr>
  )
}

export const NewAgent = () => {
  const navigate = useNavigate()
  const [name, setName] = useState("")
  const [prompt, setPrompt] = useState("")
  const [greeting, setGreeting] = useState("")
  const create = useAction((request: { name: string; prompt: string; greeting: string }) =>
    client.workflows.create({
      payload: {
        name: request.name,
        workflow_definition: {
          nodes: [{
            id: "start",
            type: "startCall",
            position: { x: 80, y: 60 },
            data: { ...defaultNodeData("startCall"), name: "Start", prompt: request.prompt, greeting: request.greeting }
          }],
          edges: []
        }
      }
    })
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await create.run({ name, prompt, greeting })
    if (Either.isRight(result)) navigate(`/agents/${WorkflowId.make(result.right.id)}`)
  }
  return (
    <section>
      <PageTitle>New agent</PageTitle>
      <FromTemplate />
      <h2>Or start from a blank agent</h2>
      <form className="card" onSubmit={submit} noValidate>
        <Field label="Name" required errors={listOf(fieldError(create.error, "name"))}>
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} maxLength={255} autoComplete="off" />}
        </Field>
        <Field label="Greeting" hint="The first thing the agent says (optional)">
          {(props) => <textarea {...props} rows={2} value={greeting} onChange={(e) => setGreeting(e.target.value)} />}
        </Field>
        <Field
          label="Prompt of the first step"
          required
          hint="What the agent does when the call starts; {{first_name}} and other variables are filled from the call's data"
          errors={listOf(fieldError(create.error, "workflow_definition.nodes.start.prompt"))}
        >
          {(props) => <textarea {...props} rows={5} value={prompt} onChange={(e) => setPrompt(e.target.value)} />}
        </Field>
        <ApiError error={create.error} title="Not created" />
        <div className="actions">
          <button type="submit" className="primary" disabled={create.pending}>{create.pending ? "Creating…" : "Create agent"}</button>
          <Link className="button" to="/agents">Cancel</Link>
        </div>
      </form>
    </section>
  )
}

/** The built-in templates (`GET /workflow/templates`): one becomes a new agent under the name given. */
const FromTemplate = () => {
  const navigate = useNavigate()
  const templates = useApi(() => client.workflowOperations.templates(), [])
  const [chosen, setChosen] = useState<number | null>(null)
  const [name, setName] = useState("")
  const create = useAction((request: { template_id: number; workflow_name: string }) =>
    client.workflowOperations.duplicateTemplate({ payload: request }))
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (chosen === null) return
    const result = await create.run({ template_id: chosen, workflow_name: name.trim() })
    if (Either.isRight(result)) navigate(`/agents/${WorkflowId.make(result.right.id)}`)
  }
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="templates-heading">
      <h2 id="templates-heading">Start from a template</h2>
      <ApiError error={templates.error} />
      {templates.data === undefined ? (templates.error === undefined && <Loading what="templates" />) : (
        <fieldset className="templates">
          <legend>Template</legend>
          {templates.data.map((t) => (
            <label key={t.id} className="template-choice">
              <input
                type="radio"
                name="template"
                checked={chosen === t.id}
                onChange={() => {
                  setChosen(t.id)
                  if (name === "" || templates.data?.some((other) => other.template_name === name)) setName(t.template_name)
                }}
              />
              <span><strong>{t.template_name}</strong> <span className="hint">{t.template_description}</span></span>
            </label>
          ))}
        </fieldset>
      )}
      <Field label="Agent name" required errors={listOf(fieldError(create.error, "workflow_name"))}>
        {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} maxLength={255} autoComplete="off" />}
      </Field>
      <ApiError error={create.error} title="Not created" />
      <div className="actions">
        <button type="submit" className="primary" disabled={chosen === null || name.trim() === "" || create.pending}>
          {create.pending ? "Creating…" : "Create from template"}
        </button>
      </div>
    </form>
  )
}

const listOf = (message: string | undefined) => (message === undefined ? undefined : [message])
