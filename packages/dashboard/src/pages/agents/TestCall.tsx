/**
 * A single test call of the agent to one number, through `POST /telephony/initiate-call` (the
 * reference's test call: the agent by id, with the login session), with the call's data over the
 * agent's template variables. It runs the latest version: the draft when there is one.
 */
import type { Workflow } from "@agentline/api/workflows/Workflow"
import { TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { Field } from "./ui.js"

/** Starts the call through the typed client, as the logged-in user. */
const startCall = (workflowId: number, request: { phone_number: string; initial_context: Record<string, unknown> | null; telephony_configuration_id: number | null }) =>
  client.testCalls.initiate({
    payload: {
      workflow_id: WorkflowId.make(workflowId),
      phone_number: request.phone_number,
      initial_context: request.initial_context,
      telephony_configuration_id: request.telephony_configuration_id === null ? null : TelephonyConfigurationId.make(request.telephony_configuration_id)
    }
  })

export const TestCall = ({ workflow }: { readonly workflow: Workflow }) => {
  const configs = useApi(() => client.telephonyConfigs.list(), [])
  const [phone, setPhone] = useState("")
  const [configId, setConfigId] = useState("")
  const [context, setContext] = useState(() => JSON.stringify(workflow.template_context_variables ?? {}, null, 2))
  const [contextError, setContextError] = useState<string | null>(null)
  const call = useAction(startCall)
  const [started, setStarted] = useState<{ id: number; name: string; message: string } | null>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setStarted(null)
    let initial: Record<string, unknown> | null = null
    if (context.trim() !== "") {
      try {
        const parsed: unknown = JSON.parse(context)
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("it must be a JSON object")
        initial = parsed as Record<string, unknown>
      } catch (error) {
        setContextError(`The call's data is not valid: ${error instanceof Error ? error.message : String(error)}`)
        return
      }
    }
    setContextError(null)
    const result = await call.run(workflow.id, {
      phone_number: phone.trim(),
      initial_context: initial,
      telephony_configuration_id: configId === "" ? null : Number(configId)
    })
    if (Either.isRight(result)) setStarted({ id: result.right.workflow_run_id, name: result.right.workflow_run_name, message: result.right.message })
  }

  return (
    <section aria-labelledby="test-call-heading">
      <h2 id="test-call-heading">Test call</h2>
      <p className="hint">
        A test call runs version {workflow.version_number ?? "?"}
        {workflow.version_status === "draft" ? ", the draft" : ", the published version"}: the latest saved, published or not.
      </p>
      <form className="card" onSubmit={submit} noValidate>
        <Field label="Number to call" required hint="E.164 (+14155550100), a SIP URI or an extension">
          {(props) => <input {...props} type="tel" autoComplete="off" value={phone} onChange={(e) => setPhone(e.target.value)} />}
        </Field>
        <Field label="Telephony configuration">
          {(props) => (
            <select {...props} value={configId} onChange={(e) => setConfigId(e.target.value)}>
              <option value="">The organization's default for outbound calls</option>
              {(configs.data?.configurations ?? []).map((c) => (
                <option key={c.id} value={String(c.id)}>{c.name} ({c.provider}){c.is_default_outbound ? " — default" : ""}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Call data (JSON)" hint="Values for the prompts' {{variables}}; starts from the agent's template variables" errors={contextError === null ? undefined : [contextError]}>
          {(props) => <textarea {...props} className="mono" rows={5} value={context} onChange={(e) => setContext(e.target.value)} />}
        </Field>
        <ApiError error={call.error} title="The call was not started" />
        <div className="actions">
          <button type="submit" className="primary" disabled={call.pending || phone.trim() === ""}>
            {call.pending ? "Starting…" : "Start test call"}
          </button>
        </div>
        <div role="status">
          {started !== null && (
            <p className="success">
              {started.message}: <Link to={`/runs/${workflow.id}/${started.id}`}>open the run</Link>.
            </p>
          )}
        </div>
      </form>
    </section>
  )
}
