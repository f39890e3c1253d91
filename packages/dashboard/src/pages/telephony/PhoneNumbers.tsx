/**
 * A configuration's phone numbers: add one, bind incoming calls on a number to an agent, make a number
 * the default caller id, delete one. Binding a number is pushed to the provider; when that push fails
 * the change is still saved and the API's `provider_sync` message is shown as a warning.
 */
import { PhoneNumberId, type TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import type { PhoneNumber } from "@agentline/api/phone-numbers/PhoneNumber"
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import { Badge, Checkbox, Field, Loading } from "../agents/ui.js"

interface SyncWarning {
  readonly address: string
  readonly message: string
}

const listOf = (message: string | undefined) => (message === undefined ? undefined : [message])

export const PhoneNumbers = ({ configId }: { readonly configId: TelephonyConfigurationId }) => {
  const numbers = useApi(() => client.phoneNumbers.list({ path: { config_id: configId } }), [configId])
  const agents = useApi(() => client.workflows.list({ urlParams: { status: "active" } }), [])
  const [warnings, setWarnings] = useState<ReadonlyArray<SyncWarning>>([])
  const [notice, setNotice] = useState<string | null>(null)
  const report = (address: string, sync: { readonly ok: boolean; readonly message: string } | null, done: string) => {
    setNotice(done)
    setWarnings(sync !== null && !sync.ok ? [{ address, message: sync.message }] : [])
    numbers.reload()
  }
  return (
    <section aria-labelledby="numbers-heading" className="card">
      <h2 id="numbers-heading">Phone numbers</h2>
      <p role="status">{notice ?? ""}</p>
      {warnings.map((w) => (
        <p key={w.address} className="notice warning" role="alert">
          Saved, but the provider was not updated for {w.address}: {w.message}. Incoming calls may not reach the agent until this is fixed at the provider.
        </p>
      ))}
      <ApiError error={numbers.error} />
      {numbers.data === undefined ? (numbers.error === undefined && <Loading what="numbers" />) : numbers.data.phone_numbers.length === 0 ? (
        <p className="hint">No numbers yet.</p>
      ) : (
        <ul className="numbers">
          {numbers.data.phone_numbers.map((n) => (
            <NumberItem key={n.id} number={n} configId={configId} agents={agents.data ?? []} onDone={report} />
          ))}
        </ul>
      )}
      <AddNumber configId={configId} agents={agents.data ?? []} onDone={report} />
    </section>
  )
}

type Agents = ReadonlyArray<{ readonly id: number; readonly name: string }>
type Report = (address: string, sync: { readonly ok: boolean; readonly message: string } | null, done: string) => void

const AgentSelect = ({ agents, label, onChange, value }: { readonly agents: Agents; readonly value: string; readonly onChange: (v: string) => void; readonly label: string }) => (
  <Field label={label} hint="Incoming calls on this number are answered by this agent">
    {(props) => (
      <select {...props} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">No agent (outbound only)</option>
        {agents.map((a) => <option key={a.id} value={String(a.id)}>{a.name}</option>)}
      </select>
    )}
  </Field>
)

const NumberItem = ({ agents, configId, number, onDone }: { readonly number: PhoneNumber; readonly configId: TelephonyConfigurationId; readonly agents: Agents; readonly onDone: Report }) => {
  const path = { config_id: configId, phone_number_id: PhoneNumberId.make(number.id) }
  const [agent, setAgent] = useState(number.inbound_workflow_id === null ? "" : String(number.inbound_workflow_id))
  const update = useAction((inbound: number | null) =>
    client.phoneNumbers.update({ path, payload: { inbound_workflow_id: inbound === null ? null : WorkflowId.make(inbound) } })
  )
  const setDefault = useAction(() => client.phoneNumbers.setDefaultCaller({ path }))
  const remove = useAction(() => client.phoneNumbers.delete({ path }))
  const bound = number.inbound_workflow_id === null ? "" : String(number.inbound_workflow_id)
  return (
    <li className="number">
      <div className="number-head">
        <strong>{number.address}</strong> {number.label !== null && <span>({number.label})</span>}{" "}
        <span className="hint">{number.address_type} · {number.address_normalized}</span>{" "}
        {number.is_default_caller_id && <Badge tone="good">default caller id</Badge>}{" "}
        {!number.is_active && <Badge>inactive</Badge>}
      </div>
      <p>
        Incoming calls: {number.inbound_workflow_id === null ? "not answered (outbound only)" : (
          <Link to={`/agents/${number.inbound_workflow_id}`}>{number.inbound_workflow_name ?? `agent ${number.inbound_workflow_id}`}</Link>
        )}
      </p>
      {number.provider_sync !== null && !number.provider_sync.ok && (
        <p className="notice warning">Provider not updated: {number.provider_sync.message}</p>
      )}
      <div className="inline-form">
        <AgentSelect agents={agents} label={`Agent for ${number.address}`} value={agent} onChange={setAgent} />
        <button
          type="button"
          disabled={update.pending || agent === bound}
          onClick={async () => {
            const result = await update.run(agent === "" ? null : Number(agent))
            if (Either.isRight(result)) onDone(number.address, result.right.provider_sync, `${number.address} saved.`)
          }}
        >
          Save agent for {number.address}
        </button>
      </div>
      <div className="actions">
        {!number.is_default_caller_id && (
          <button type="button" disabled={setDefault.pending} onClick={async () => {
            const result = await setDefault.run()
            if (Either.isRight(result)) onDone(number.address, null, `${number.address} is now the default caller id.`)
          }}>
            Make {number.address} the default caller id
          </button>
        )}
        <button type="button" className="danger" disabled={remove.pending} onClick={async () => {
          const result = await remove.run()
          if (Either.isRight(result)) onDone(number.address, result.right.provider_sync, `${number.address} deleted.`)
        }}>
          Delete {number.address}
        </button>
      </div>
      <ApiError error={update.error ?? setDefault.error ?? remove.error} />
    </li>
  )
}

const AddNumber = ({ agents, configId, onDone }: { readonly configId: TelephonyConfigurationId; readonly agents: Agents; readonly onDone: Report }) => {
  const [address, setAddress] = useState("")
  const [country, setCountry] = useState("")
  const [label, setLabel] = useState("")
  const [agent, setAgent] = useState("")
  const [isDefault, setIsDefault] = useState(false)
  const create = useAction((payload: { address: string; country_code: string | null; label: string | null; inbound_workflow_id: number | null; is_default_caller_id: boolean }) =>
    client.phoneNumbers.create({
      path: { config_id: configId },
      payload: { ...payload, is_active: true, extra_metadata: {}, inbound_workflow_id: payload.inbound_workflow_id === null ? null : WorkflowId.make(payload.inbound_workflow_id) }
    })
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await create.run({
      address: address.trim(),
      country_code: country.trim() === "" ? null : country.trim().toUpperCase(),
      label: label.trim() === "" ? null : label.trim(),
      inbound_workflow_id: agent === "" ? null : Number(agent),
      is_default_caller_id: isDefault
    })
    if (Either.isRight(result)) {
      onDone(result.right.address, result.right.provider_sync, `${result.right.address} added.`)
      setAddress("")
      setLabel("")
      setAgent("")
      setIsDefault(false)
    }
  }
  return (
    <form onSubmit={submit} noValidate className="add-number" aria-labelledby="add-number-heading">
      <h3 id="add-number-heading">Add a number</h3>
      <Field label="Number or address" required hint="+14155550100, a SIP URI (sip:agent@example.com) or an extension" errors={listOf(fieldError(create.error, "address"))}>
        {(props) => <input {...props} type="text" inputMode="tel" autoComplete="off" value={address} maxLength={255} onChange={(e) => setAddress(e.target.value)} />}
      </Field>
      <Field label="Country code" hint="Two letters (US, GB…) for numbers written without +" errors={listOf(fieldError(create.error, "country_code"))}>
        {(props) => <input {...props} value={country} maxLength={2} autoComplete="off" onChange={(e) => setCountry(e.target.value)} />}
      </Field>
      <Field label="Label" errors={listOf(fieldError(create.error, "label"))}>
        {(props) => <input {...props} value={label} maxLength={64} onChange={(e) => setLabel(e.target.value)} />}
      </Field>
      <AgentSelect agents={agents} label="Agent for incoming calls" value={agent} onChange={setAgent} />
      <Checkbox label="Default caller id of this configuration" checked={isDefault} onChange={setIsDefault} />
      <ApiError error={create.error} title="Not added" />
      <div className="actions">
        <button type="submit" className="primary" disabled={create.pending || address.trim() === ""}>{create.pending ? "Adding…" : "Add number"}</button>
      </div>
    </form>
  )
}
