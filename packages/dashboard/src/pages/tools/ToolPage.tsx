/**
 * One tool: what it calls, a test with sample arguments (the request made, the answer, and the text the
 * model would be given), an MCP server's tools and their refresh, archive and unarchive.
 */
import type { Tool, ToolTestResponse } from "@agentline/api/tools/Tools"
import { Either } from "effect"
import { type FormEvent, useEffect, useState } from "react"
import { Link, useParams } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Badge, Field, formatDate, Loading } from "../agents/ui.js"
import { sampleArguments, toolSchema } from "./toolForm.js"

export const ToolPage = () => {
  const { toolUuid = "" } = useParams()
  const tool = useApi(() => client.tools.get({ path: { tool_uuid: toolUuid } }), [toolUuid])
  const archive = useAction(() => client.tools.delete({ path: { tool_uuid: toolUuid } }))
  const unarchive = useAction(() => client.tools.unarchive({ path: { tool_uuid: toolUuid } }))
  const [announcement, setAnnouncement] = useState("")
  if (tool.data === undefined) {
    return (
      <section>
        <PageTitle>Tool</PageTitle>
        <ApiError error={tool.error} title="The tool could not be loaded" />
        {tool.error === undefined && <Loading what="the tool" />}
      </section>
    )
  }
  const t = tool.data
  const toggle = async () => {
    const done = t.status === "active" ? Either.isRight(await archive.run()) : Either.isRight(await unarchive.run())
    if (done) {
      setAnnouncement(t.status === "active" ? `Archived ${t.name}.` : `Unarchived ${t.name}.`)
      tool.reload()
    }
  }
  return (
    <section>
      <p><Link to="/tools">← Tools</Link></p>
      <PageTitle title={t.name}>{t.name} {t.status === "active" ? <Badge tone="good">active</Badge> : <Badge>archived</Badge>}</PageTitle>
      {t.description !== null && <p>{t.description}</p>}
      <dl className="facts">
        <dt>Type</dt>
        <dd>{t.category === "mcp" ? "MCP server (Streamable HTTP)" : "HTTP request"}</dd>
        <dt>Calls</dt>
        <dd><code>{t.definition.type === "http_api" ? `${t.definition.config.method} ` : ""}{t.definition.config.url}</code></dd>
        <dt>Created</dt>
        <dd>{formatDate(t.created_at)}{t.created_by !== null ? ` by ${t.created_by.provider_id}` : ""}</dd>
      </dl>
      <p role="status" className="visually-hidden">{announcement}</p>
      <ApiError error={archive.error} title="The tool was not archived" />
      <ApiError error={unarchive.error} title="The tool was not unarchived" />
      <div className="actions">
        <button type="button" className={t.status === "active" ? "danger" : undefined} disabled={archive.pending || unarchive.pending} onClick={toggle}>
          {t.status === "active" ? "Archive" : "Unarchive"}
        </button>
      </div>
      {t.definition.type === "mcp" && <McpCatalog tool={t} onRefreshed={tool.reload} />}
      <TestPanel tool={t} />
    </section>
  )
}

const McpCatalog = ({ onRefreshed, tool }: { readonly tool: Tool; readonly onRefreshed: () => void }) => {
  const refresh = useAction(() => client.tools.refreshMcp({ path: { tool_uuid: tool.tool_uuid } }))
  const [error, setError] = useState<string | null>(null)
  if (tool.definition.type !== "mcp") return null
  const config = tool.definition.config
  const run = async () => {
    const result = await refresh.run()
    if (Either.isRight(result)) {
      setError(result.right.error)
      onRefreshed()
    }
  }
  return (
    <section className="card" aria-labelledby="mcp-tools-heading">
      <h2 id="mcp-tools-heading">The server's tools</h2>
      <ApiError error={refresh.error} title="The server's tools were not refreshed" />
      {error !== null && <div className="error" role="alert"><p>{error}</p></div>}
      {config.discovered_tools.length === 0 ? <p>None listed yet: refresh to read them from the server.</p> : (
        <ul>
          {config.discovered_tools.map((t) => (
            <li key={t.name}>
              <code>{t.name}</code>
              {t.description !== null ? `: ${t.description}` : ""}
              {config.tools_filter.length > 0 && !config.tools_filter.includes(t.name) && <> <Badge>not offered</Badge></>}
            </li>
          ))}
        </ul>
      )}
      <div className="actions">
        <button type="button" disabled={refresh.pending} onClick={run}>{refresh.pending ? "Refreshing…" : "Refresh the server's tools"}</button>
      </div>
    </section>
  )
}

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const TestPanel = ({ tool }: { readonly tool: Tool }) => {
  const catalog = tool.definition.type === "mcp" ? tool.definition.config.discovered_tools : []
  const [mcpTool, setMcpTool] = useState(catalog[0]?.name ?? "")
  const schema = tool.definition.type === "mcp" ? catalog.find((t) => t.name === mcpTool)?.input_schema : toolSchema(tool)
  const [args, setArgs] = useState(() => sampleArguments(schema))
  useEffect(() => setArgs(sampleArguments(schema)), [mcpTool, tool.tool_uuid]) // eslint-disable-line react-hooks/exhaustive-deps
  const [argsError, setArgsError] = useState<string | null>(null)
  const [outcome, setOutcome] = useState<ToolTestResponse | undefined>(undefined)
  const test = useAction((llm_params: Record<string, unknown>) =>
    client.tools.test({
      path: { tool_uuid: tool.tool_uuid },
      payload: { llm_params, preset_params: {}, ...(tool.definition.type === "mcp" ? { mcp_tool_name: mcpTool } : {}) }
    })
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    let parsed: unknown
    try {
      parsed = JSON.parse(args)
    } catch (error) {
      return setArgsError(`The arguments are not JSON: ${error instanceof Error ? error.message : String(error)}`)
    }
    if (!isObject(parsed)) return setArgsError("The arguments must be a JSON object")
    setArgsError(null)
    const result = await test.run(parsed)
    if (Either.isRight(result)) setOutcome(result.right)
  }
  return (
    <form className="card" onSubmit={submit} aria-labelledby="test-heading">
      <h2 id="test-heading">Test</h2>
      <p className="hint">Calls the tool once, as a call would, with these arguments (what the model would send).</p>
      {tool.definition.type === "mcp" && (
        <Field label="Server tool">
          {(props) => (
            <select {...props} value={mcpTool} onChange={(e) => setMcpTool(e.target.value)}>
              {catalog.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}
            </select>
          )}
        </Field>
      )}
      <Field label="Arguments (JSON)" errors={argsError === null ? undefined : [argsError]}>
        {(props) => <textarea {...props} className="mono" rows={6} value={args} onChange={(e) => setArgs(e.target.value)} />}
      </Field>
      <ApiError error={test.error} title="The test did not run" />
      <div className="actions">
        <button type="submit" className="primary" disabled={test.pending}>{test.pending ? "Calling…" : "Run test"}</button>
      </div>
      {outcome !== undefined && <TestOutcome outcome={outcome} />}
    </form>
  )
}

const TestOutcome = ({ outcome }: { readonly outcome: ToolTestResponse }) => (
  <section aria-labelledby="test-result-heading" aria-live="polite">
    <h3 id="test-result-heading">
      Result {outcome.status === "success" ? <Badge tone="good">success</Badge> : <Badge tone="bad">error</Badge>}
    </h3>
    <dl className="facts">
      <dt>Request</dt>
      <dd><code>{outcome.request_method} {outcome.request_url}</code></dd>
      <dt>Status</dt>
      <dd>{outcome.status_code ?? "no answer"}</dd>
      <dt>Took</dt>
      <dd>{outcome.duration_ms} ms</dd>
      {outcome.error !== null && (
        <>
          <dt>Error</dt>
          <dd>{outcome.error}</dd>
        </>
      )}
      {outcome.hint !== null && (
        <>
          <dt>What to do</dt>
          <dd>{outcome.hint}</dd>
        </>
      )}
    </dl>
    <h4>What the model is given{outcome.result_truncated ? " (cut to its limit)" : ""}</h4>
    <pre className="mono tool-result">{outcome.result}</pre>
  </section>
)
