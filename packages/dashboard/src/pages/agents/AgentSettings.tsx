/**
 * The agent's name, template variables and configurations. A new name is not a new version; new
 * variables or configurations are (the server keeps them, with the latest definition, as a new draft).
 */
import type { Workflow } from "@agentline/api/workflows/Workflow"
import { WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { client } from "../../api/client.js"
import { useAction } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import {
  CONFIGURATION_FIELDS,
  configurationKey,
  joinConfigurations,
  sameSetting,
  splitConfigurations,
  type VariableRow,
  variableRows,
  variablesObject
} from "./agentSettings.js"
import { templateVariables } from "./definitionGraph.js"
import { Checkbox, Field, RowFields } from "./ui.js"

export const AgentSettings = ({ onSaved, workflow }: { readonly workflow: Workflow; readonly onSaved: (message: string) => void }) => {
  const id = WorkflowId.make(workflow.id)
  const [name, setName] = useState(workflow.name)
  const [rows, setRows] = useState<Array<VariableRow>>(() => variableRows(workflow.template_context_variables))
  const initialConfig = splitConfigurations(workflow.workflow_configurations)
  const [values, setValues] = useState(initialConfig.values)
  const [rest, setRest] = useState(initialConfig.rest)
  const [problems, setProblems] = useState<Record<string, string>>({})
  const update = useAction((payload: {
    name?: string
    template_context_variables?: Record<string, unknown>
    workflow_configurations?: Record<string, unknown>
  }) => client.workflows.update({ path: { workflow_id: id }, payload }))

  const used = templateVariables(workflow.workflow_definition)
  const missing = used.filter((v) => !rows.some((r) => r.name.trim() === v.name))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const variables = variablesObject(rows, workflow.template_context_variables)
    const configurations = joinConfigurations(values, rest)
    const found: Record<string, string> = {}
    if ("errors" in variables) found.variables = variables.errors.join(". ")
    if ("errors" in configurations) Object.assign(found, configurations.errors)
    if (name.trim() === "") found.name = "The name must not be empty"
    setProblems(found)
    if ("errors" in variables || "errors" in configurations || name.trim() === "") return
    // Only what changed is sent: an unchanged part (an empty one counting as unset) makes no new version.
    const payload = {
      ...(name !== workflow.name ? { name } : {}),
      ...(sameSetting(workflow.template_context_variables, variables.value) ? {} : { template_context_variables: variables.value }),
      ...(sameSetting(workflow.workflow_configurations, configurations.value) ? {} : { workflow_configurations: configurations.value })
    }
    if (Object.keys(payload).length === 0) return onSaved("Nothing changed.")
    const result = await update.run(payload)
    if (Either.isRight(result)) {
      onSaved(
        result.right.version_number !== workflow.version_number
          ? `Saved as draft version ${result.right.version_number ?? "?"}: test calls run it; publish it to make campaigns run it.`
          : "Saved (nothing else changed, so no new version)."
      )
    }
  }

  const nameErrors = [problems.name, fieldError(update.error, "name")].filter((m): m is string => m !== undefined)
  return (
    <form className="settings-form" onSubmit={submit} noValidate>
      <section className="card" aria-labelledby="name-heading">
        <h2 id="name-heading">Name</h2>
        <Field label="Agent name" required errors={nameErrors}>
          {(props) => <input {...props} value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />}
        </Field>
      </section>

      <section className="card" aria-labelledby="variables-heading">
        <h2 id="variables-heading">Template variables</h2>
        <p className="hint">
          Default values for <code>{"{{name}}"}</code> placeholders in prompts, used when a call's data does not give one (test calls, calls from
          the API without that value).
        </p>
        <RowFields rows={rows} noun="Variable" columns={[{ label: "name", key: "name" }, { label: "value", key: "value" }]} onChange={(next) => setRows([...next])} />
        <div className="actions">
          <button type="button" onClick={() => setRows([...rows, { name: "", value: "" }])}>Add variable</button>
          {missing.map((v) => (
            <button key={v.name} type="button" onClick={() => setRows([...rows, { name: v.name, value: "" }])}>
              Add {v.name} (used in the prompts{v.hasDefault ? ", has a default there" : ""})
            </button>
          ))}
        </div>
        {problems.variables !== undefined && <p className="field-error">{problems.variables}</p>}
      </section>

      <section className="card" aria-labelledby="config-heading">
        <h2 id="config-heading">Configurations</h2>
        {CONFIGURATION_FIELDS.map((field) => {
          const key = configurationKey(field)
          if (field.kind === "text") {
            return (
              <Field key={key} label={field.label} hint={field.help} errors={problems[key] === undefined ? undefined : [problems[key]]}>
                {(props) => (
                  <>
                    <input {...props} list={`${key}-choices`} value={String(values[key] ?? "")} onChange={(e) => setValues({ ...values, [key]: e.target.value })} />
                    <datalist id={`${key}-choices`}>{(field.suggestions ?? []).map((s) => <option key={s} value={s} />)}</datalist>
                  </>
                )}
              </Field>
            )
          }
          return field.kind === "checkbox"
            ? (
              <Checkbox key={key} label={field.label} hint={field.help} checked={values[key] === true} onChange={(checked) => setValues({ ...values, [key]: checked })} />
            )
            : (
              <Field key={key} label={field.label} hint={field.help} errors={problems[key] === undefined ? undefined : [problems[key]]}>
                {(props) => (
                  <input
                    {...props}
                    type="number"
                    inputMode="decimal"
                    {...(field.min !== undefined ? { min: field.min } : {})}
                    {...(field.max !== undefined ? { max: field.max } : {})}
                    step={field.step ?? "any"}
                    value={String(values[key] ?? "")}
                    onChange={(e) => setValues({ ...values, [key]: e.target.value })}
                  />
                )}
              </Field>
            )
        })}
        <Field
          label="Other settings (JSON)"
          hint="Any other keys of workflow_configurations (model_overrides.credentials, transcript_configuration, dictionary…), kept as they are"
          errors={problems.rest === undefined ? undefined : [problems.rest]}
        >
          {(props) => <textarea {...props} className="mono" rows={6} value={rest} onChange={(e) => setRest(e.target.value)} />}
        </Field>
      </section>

      <ApiError error={update.error} title="Not saved" />
      <div className="actions">
        <button type="submit" className="primary" disabled={update.pending}>{update.pending ? "Saving…" : "Save settings"}</button>
      </div>
    </form>
  )
}
