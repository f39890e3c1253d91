/**
 * A step's tools in its form: the organization's tools as checkboxes (archived or unknown ones the step
 * still lists are shown so they can be removed), and for each MCP tool chosen, its server's tools.
 * The Tools page creates and tests them.
 */
import { useId } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import type { JsonObject } from "./definitionGraph.js"
import { chosenMcpTools, listedTools, withMcpTool, withTool } from "./toolChoice.js"
import { Checkbox } from "./ui.js"

export const ToolsField = ({ data, errors, help, label, onChange }: {
  readonly label: string
  readonly help: string | undefined
  readonly data: JsonObject
  /** The server's problems with the step's tools and MCP choices. */
  readonly errors: ReadonlyArray<string>
  readonly onChange: (data: JsonObject) => void
}) => {
  const tools = useApi(() => client.tools.list({ urlParams: {} }), [])
  const legend = useId()
  const listed = listedTools(data)
  const known = new Set((tools.data ?? []).map((t) => t.tool_uuid))
  const shown = (tools.data ?? []).filter((t) => t.status === "active" || listed.includes(t.tool_uuid))
  return (
    <fieldset className="rows" aria-labelledby={legend}>
      <legend id={legend}>{label}</legend>
      {help !== undefined && <p className="hint">{help}</p>}
      <ApiError error={tools.error} title="The tools could not be loaded" />
      {tools.data !== undefined && shown.length === 0 && (
        <p className="hint">The organization has no tools yet: <Link to="/tools">create one</Link>.</p>
      )}
      {shown.map((tool) => {
        const on = listed.includes(tool.tool_uuid)
        const kind = tool.category === "mcp" ? "MCP server" : "HTTP"
        const definition = tool.definition
        const allowed = definition.type === "mcp"
          ? definition.config.discovered_tools.map((t) => t.name).filter((n) => definition.config.tools_filter.length === 0 || definition.config.tools_filter.includes(n))
          : []
        const chosen = chosenMcpTools(data, tool.tool_uuid) ?? allowed
        return (
          <div key={tool.tool_uuid}>
            <Checkbox
              label={`${tool.name} (${kind}${tool.status === "active" ? "" : ", archived"})`}
              checked={on}
              onChange={(checked) => onChange(withTool(data, tool.tool_uuid, checked))}
            />
            {on && definition.type === "mcp" && (
              <fieldset className="rows nested">
                <legend>Tools of {tool.name} this step may use</legend>
                {allowed.length === 0 && <p className="hint">None listed yet: refresh the server's tools on the Tools page.</p>}
                {allowed.map((name) => (
                  <Checkbox
                    key={name}
                    label={name}
                    checked={chosen.includes(name)}
                    onChange={(checked) => onChange(withMcpTool(data, tool.tool_uuid, allowed, name, checked))}
                  />
                ))}
              </fieldset>
            )}
          </div>
        )
      })}
      {tools.data !== undefined && listed.filter((uuid) => !known.has(uuid)).map((uuid) => (
        <p key={uuid}>
          Unknown tool <code>{uuid}</code>{" "}
          <button type="button" className="danger" onClick={() => onChange(withTool(data, uuid, false))}>Remove {uuid}</button>
        </p>
      ))}
      {errors.length > 0 && <p className="field-error">{errors.join(" ")}</p>}
    </fieldset>
  )
}
