/**
 * Tools: the organization's tools (archived ones on request) and the form that creates an HTTP tool or
 * an MCP server. What the form cannot tell (placeholders naming no parameter, a private address, a
 * parameters schema that is not one) the API answers field by field, shown above the form.
 */
import { CreateToolRequest } from "@agentline/api/tools/Tools"
import { Effect, Either } from "effect"
import { type FormEvent, useState } from "react"
import { Link, useNavigate } from "react-router"
import { client, decodePayload } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Badge, Checkbox, Field, formatDate, Loading, RowFields } from "../agents/ui.js"
import { emptyToolForm, type HeaderRow, PARAMETER_TYPES, type ParameterRow, type ToolFormValues, toolRequest } from "./toolForm.js"

export const ToolList = () => {
  const [showArchived, setShowArchived] = useState(false)
  const tools = useApi(() => client.tools.list({ urlParams: showArchived ? {} : { status: "active" } }), [showArchived])
  const [creating, setCreating] = useState(false)
  return (
    <section>
      <PageTitle>Tools</PageTitle>
      <p>
        Tools are what an agent's language model may call during a call: an HTTP request to your systems, or the tools of an
        MCP server. An agent's steps choose their tools in the agent editor.
      </p>
      <div className="toolbar">
        {!creating && <button type="button" className="primary" onClick={() => setCreating(true)}>New tool</button>}
        <Checkbox label="Show archived tools" checked={showArchived} onChange={setShowArchived} />
      </div>
      {creating && <NewTool onCancel={() => setCreating(false)} />}
      <ApiError error={tools.error} title="The tools could not be loaded" />
      {tools.data === undefined ? (tools.error === undefined && <Loading what="tools" />) : tools.data.length === 0 ? (
        <p>No tools yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Tools</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Calls</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {tools.data.map((tool) => (
                <tr key={tool.tool_uuid}>
                  <td data-label="Name"><Link to={tool.tool_uuid}>{tool.name}</Link></td>
                  <td data-label="Type">{tool.category === "mcp" ? "MCP server" : "HTTP"}</td>
                  <td data-label="Calls"><code>{tool.definition.type === "http_api" ? `${tool.definition.config.method} ` : ""}{tool.definition.config.url}</code></td>
                  <td data-label="Status">{tool.status === "active" ? <Badge tone="good">active</Badge> : <Badge>archived</Badge>}</td>
                  <td data-label="Created">{formatDate(tool.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

const NewTool = ({ onCancel }: { readonly onCancel: () => void }) => {
  const navigate = useNavigate()
  const credentials = useApi(() => client.credentials.list(), [])
  const [form, setForm] = useState<ToolFormValues>(emptyToolForm)
  const [formProblems, setFormProblems] = useState<ReadonlyArray<string>>([])
  const set = <K extends keyof ToolFormValues>(key: K, value: ToolFormValues[K]) => setForm((f) => ({ ...f, [key]: value }))
  const create = useAction((payload: Record<string, unknown>) =>
    Effect.flatMap(decodePayload(CreateToolRequest, payload), (request) => client.tools.create({ payload: request }))
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const request = toolRequest(form)
    if (Either.isLeft(request)) return setFormProblems(request.left)
    setFormProblems([])
    const result = await create.run(request.right)
    if (Either.isRight(result)) navigate(result.right.tool_uuid)
  }
  const http = form.kind === "http_api"
  return (
    <form className="card" onSubmit={submit} aria-labelledby="new-tool-heading">
      <h2 id="new-tool-heading">New tool</h2>
      {formProblems.length > 0 && (
        <div className="error" role="alert">
          <ul>{formProblems.map((p) => <li key={p}>{p}</li>)}</ul>
        </div>
      )}
      <ApiError error={create.error} title="The tool was not created" />
      <Field label="Type">
        {(props) => (
          <select {...props} value={form.kind} onChange={(e) => set("kind", e.target.value === "mcp" ? "mcp" : "http_api")}>
            <option value="http_api">HTTP request</option>
            <option value="mcp">MCP server (Streamable HTTP)</option>
          </select>
        )}
      </Field>
      <Field label="Name" required hint="The model calls the tool by this name (lower-cased, other characters than letters and digits made _).">
        {(props) => <input {...props} value={form.name} onChange={(e) => set("name", e.target.value)} />}
      </Field>
      <Field label="Description" hint="What the model reads to decide when to call it: say when, and what it answers.">
        {(props) => <textarea {...props} rows={2} value={form.description} onChange={(e) => set("description", e.target.value)} />}
      </Field>
      {http && (
        <Field label="Method">
          {(props) => (
            <select {...props} value={form.method} onChange={(e) => set("method", e.target.value as ToolFormValues["method"])}>
              {(["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map((m) => <option key={m} value={m}>{m}</option>)}
            </select>
          )}
        </Field>
      )}
      <Field
        label="URL"
        required
        hint={http
          ? "e.g. https://api.example.com/orders/{{order_id}}: placeholders name parameters, in the path and query only."
          : "The server's Streamable HTTP endpoint, e.g. https://mcp.example.com/mcp."}
      >
        {(props) => <input {...props} value={form.url} onChange={(e) => set("url", e.target.value)} />}
      </Field>
      <Field label="Credential" hint="A stored credential (POST /api/v1/credentials) whose header every request carries.">
        {(props) => (
          <select {...props} value={form.credentialUuid} onChange={(e) => set("credentialUuid", e.target.value)}>
            <option value="">None</option>
            {(credentials.data ?? []).map((c) => <option key={c.uuid} value={c.uuid}>{c.name}</option>)}
          </select>
        )}
      </Field>
      {http ? <HttpFields form={form} set={set} /> : (
        <>
          <Field label="Server tools agents may use" hint="One name per line; empty: all of them. The list is read from the server when the tool is created.">
            {(props) => <textarea {...props} rows={3} value={form.toolsFilter} onChange={(e) => set("toolsFilter", e.target.value)} />}
          </Field>
          <Field label="Timeout (seconds)" hint="The longest one call may take, connection included (default 30, at most 120).">
            {(props) => <input {...props} type="number" min={1} max={120} value={form.timeoutSecs} onChange={(e) => set("timeoutSecs", e.target.value)} />}
          </Field>
        </>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={create.pending}>{create.pending ? "Creating…" : "Create tool"}</button>
        <button type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}

const HttpFields = ({ form, set }: {
  readonly form: ToolFormValues
  readonly set: <K extends keyof ToolFormValues>(key: K, value: ToolFormValues[K]) => void
}) => (
  <>
    <fieldset className="rows">
      <legend>Parameters</legend>
      <p className="hint">What the model fills in when it calls the tool; checked before the request is made.</p>
      <Field label="Parameters as">
        {(props) => (
          <select {...props} value={form.parametersAs} onChange={(e) => set("parametersAs", e.target.value === "schema" ? "schema" : "list")}>
            <option value="list">A list</option>
            <option value="schema">A JSON Schema of an object</option>
          </select>
        )}
      </Field>
      {form.parametersAs === "list"
        ? (
          <>
            <RowFields<ParameterRow>
              rows={form.parameters}
              noun="Parameter"
              columns={[
                { label: "name", key: "name" },
                { label: "type", key: "type", options: PARAMETER_TYPES },
                { label: "description", key: "description" },
                { label: "required", key: "required", options: ["yes", "no"] }
              ]}
              onChange={(rows) => set("parameters", rows)}
            />
            <button type="button" onClick={() => set("parameters", [...form.parameters, { name: "", type: "string", description: "", required: "yes" }])}>
              Add parameter
            </button>
          </>
        )
        : (
          <Field label="JSON Schema">
            {(props) => <textarea {...props} className="mono" rows={8} value={form.schemaText} onChange={(e) => set("schemaText", e.target.value)} />}
          </Field>
        )}
    </fieldset>
    <fieldset className="rows">
      <legend>Headers</legend>
      <p className="hint">Sent with every request; values may hold placeholders. Secrets belong in a credential.</p>
      <RowFields<HeaderRow>
        rows={form.headers}
        noun="Header"
        columns={[{ label: "name", key: "key" }, { label: "value", key: "value" }]}
        onChange={(rows) => set("headers", rows)}
      />
      <button type="button" onClick={() => set("headers", [...form.headers, { key: "", value: "" }])}>Add header</button>
    </fieldset>
    {form.method !== "GET" && form.method !== "DELETE" && (
      <Field label="Body template" hint={"A JSON object; \"{{seats}}\" alone keeps the value's type. Empty: every parameter as one object."}>
        {(props) => <textarea {...props} className="mono" rows={4} value={form.bodyText} onChange={(e) => set("bodyText", e.target.value)} />}
      </Field>
    )}
    <Field label="Timeout (ms)" hint="How long to wait for the answer (default 5000, at most 60000).">
      {(props) => <input {...props} type="number" min={1} max={60000} value={form.timeoutMs} onChange={(e) => set("timeoutMs", e.target.value)} />}
    </Field>
    <Field label="Said while waiting" hint="e.g. “One moment, let me check.”">
      {(props) => <input {...props} value={form.waitingMessage} onChange={(e) => set("waitingMessage", e.target.value)} />}
    </Field>
  </>
)
