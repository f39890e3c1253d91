/**
 * Telephony configurations: the list, the form that adds one (generated from the providers' metadata)
 * and one configuration's page (its credentials, default for outbound calls, delete, and its numbers).
 */
import { TelephonyConfigurationId } from "@agentline/api/Ids"
import type { TelephonyConfigurationDetail } from "@agentline/api/telephony/TelephonyConfig"
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { Link, useNavigate, useParams } from "react-router"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Badge, Checkbox, Field, formatDate, Loading, routeId } from "../agents/ui.js"
import { PhoneNumbers } from "./PhoneNumbers.js"
import { ProviderFields } from "./ProviderFields.js"
import { configIssues, type FormValues, initialValues, type ProviderMeta, toConfig } from "./providerForm.js"

const validationIssues = (error: unknown): ReadonlyArray<{ loc: ReadonlyArray<string | number>; msg: string }> => {
  const e = error as { _tag?: string; detail?: unknown } | undefined
  return e?._tag === "ValidationError" && Array.isArray(e.detail) ? e.detail : []
}

export const ConfigurationList = () => {
  const configs = useApi(() => client.telephonyConfigs.list(), [])
  return (
    <section>
      <PageTitle>Telephony</PageTitle>
      <p>Each configuration holds one provider account's credentials; phone numbers belong to a configuration.</p>
      <div className="toolbar">
        <Link className="button primary" to="new">Add configuration</Link>
      </div>
      <ApiError error={configs.error} />
      {configs.data === undefined ? (configs.error === undefined && <Loading what="configurations" />) : configs.data.configurations.length === 0 ? (
        <p>No telephony configuration yet: calls cannot be placed until one exists. <Link to="new">Add one</Link>.</p>
      ) : (
        <div className="table-wrap">
          <table className="stack">
            <caption className="visually-hidden">Telephony configurations</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Provider</th>
                <th scope="col">Outbound default</th>
                <th scope="col">Numbers</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {configs.data.configurations.map((c) => (
                <tr key={c.id}>
                  <td data-label="Name"><Link to={String(c.id)}>{c.name}</Link></td>
                  <td data-label="Provider">{c.provider}</td>
                  <td data-label="Outbound default">{c.is_default_outbound ? <Badge tone="good">default</Badge> : "—"}</td>
                  <td data-label="Numbers">{c.phone_number_count}</td>
                  <td data-label="Updated">{formatDate(c.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

export const NewConfiguration = () => {
  const navigate = useNavigate()
  const metadata = useApi(() => client.telephonyConfigs.metadata(), [])
  const [provider, setProvider] = useState("")
  const [name, setName] = useState("")
  const [values, setValues] = useState<FormValues>({})
  const [isDefault, setIsDefault] = useState(false)
  const [formErrors, setFormErrors] = useState<Record<string, string>>({})
  const create = useAction((request: { name: string; config: Record<string, unknown> & { provider: string }; is_default_outbound: boolean }) =>
    client.telephonyConfigs.create({ payload: request })
  )
  const providers: ReadonlyArray<ProviderMeta> = metadata.data?.providers ?? []
  const meta = providers.find((p) => p.provider === provider)
  const choose = (next: string) => {
    setProvider(next)
    const chosen = providers.find((p) => p.provider === next)
    setValues(chosen === undefined ? {} : initialValues(chosen))
    setFormErrors({})
    create.reset()
  }
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (meta === undefined) return
    const config = toConfig(meta, values)
    if ("errors" in config) return setFormErrors(config.errors)
    setFormErrors({})
    const result = await create.run({ name, config: config.config, is_default_outbound: isDefault })
    if (Either.isRight(result)) navigate(`/telephony/${result.right.id}`)
  }
  const serverErrors = configIssues(validationIssues(create.error))
  const errorsOf = (field: string) => [...(formErrors[field] !== undefined ? [formErrors[field]] : []), ...(serverErrors[field] ?? [])]
  return (
    <section>
      <PageTitle>Add a telephony configuration</PageTitle>
      <ApiError error={metadata.error} />
      <form className="card" onSubmit={submit} noValidate>
        <Field label="Provider" required>
          {(props) => (
            <select {...props} value={provider} onChange={(e) => choose(e.target.value)}>
              <option value="">Choose a provider</option>
              {providers.map((p) => <option key={p.provider} value={p.provider}>{p.display_name}</option>)}
            </select>
          )}
        </Field>
        <Field label="Name" required hint="1 to 64 characters, unique in the organization" errors={errorsOf("name")}>
          {(props) => <input {...props} value={name} maxLength={64} autoComplete="off" onChange={(e) => setName(e.target.value)} />}
        </Field>
        {meta !== undefined && (
          <fieldset>
            <legend>{meta.display_name} settings</legend>
            <ProviderFields meta={meta} values={values} onChange={setValues} editing={false} errors={Object.fromEntries(meta.fields.map((f) => [f.name, errorsOf(f.name)]))} />
          </fieldset>
        )}
        <Checkbox label="Use for outbound calls by default" checked={isDefault} onChange={setIsDefault} hint="Campaigns and calls that name no configuration use the default one" />
        <ApiError error={create.error} title="Not added" />
        <div className="actions">
          <button type="submit" className="primary" disabled={create.pending || meta === undefined}>{create.pending ? "Adding…" : "Add configuration"}</button>
          <Link className="button" to="/telephony">Cancel</Link>
        </div>
      </form>
    </section>
  )
}

export const ConfigurationPage = () => {
  const id = routeId(useParams().configId)
  if (id === undefined) return <p className="error" role="alert">This is not a configuration's address.</p>
  return <LoadedConfiguration id={TelephonyConfigurationId.make(id)} />
}

const LoadedConfiguration = ({ id }: { readonly id: TelephonyConfigurationId }) => {
  const navigate = useNavigate()
  const detail = useApi(() => client.telephonyConfigs.get({ path: { config_id: id } }), [id])
  const metadata = useApi(() => client.telephonyConfigs.metadata(), [])
  const setDefault = useAction(() => client.telephonyConfigs.setDefaultOutbound({ path: { config_id: id } }))
  const remove = useAction(() => client.telephonyConfigs.delete({ path: { config_id: id } }))
  const [confirming, setConfirming] = useState(false)
  if (detail.data === undefined || metadata.data === undefined) {
    const error = detail.error ?? metadata.error
    return error !== undefined ? <ApiError error={error} /> : <Loading what="the configuration" />
  }
  const config = detail.data
  const meta = metadata.data.providers.find((p) => p.provider === config.provider)
  return (
    <section>
      <PageTitle title={`Telephony: ${config.name}`}>{config.name}</PageTitle>
      <div className="card">
        <p>
          Provider {meta?.display_name ?? config.provider} · {config.is_default_outbound ? <Badge tone="good">default for outbound calls</Badge> : "not the outbound default"} ·
          updated {formatDate(config.updated_at)}
        </p>
        <div className="actions">
          {!config.is_default_outbound && (
            <button type="button" disabled={setDefault.pending} onClick={async () => { if (Either.isRight(await setDefault.run())) detail.reload() }}>
              Make default for outbound calls
            </button>
          )}
          {!confirming ? <button type="button" className="danger" onClick={() => setConfirming(true)}>Delete configuration</button> : (
            <span className="confirm" role="group" aria-label="Confirm deletion">
              <span>Delete {config.name} and its numbers?</span>
              <button type="button" className="danger" disabled={remove.pending} onClick={async () => { if (Either.isRight(await remove.run())) navigate("/telephony") }}>
                Yes, delete
              </button>
              <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
            </span>
          )}
        </div>
        <ApiError error={setDefault.error} />
        <ApiError error={remove.error} title="Not deleted" />
      </div>
      {meta === undefined
        ? <p className="notice">The provider {config.provider} is not available on this server; its settings cannot be edited here.</p>
        : <EditConfiguration key={config.id} config={config} meta={meta} onSaved={detail.reload} />}
      <PhoneNumbers configId={id} />
    </section>
  )
}

const EditConfiguration = ({ config, meta, onSaved }: { readonly config: TelephonyConfigurationDetail; readonly meta: ProviderMeta; readonly onSaved: () => void }) => {
  const [name, setName] = useState(config.name)
  const [values, setValues] = useState<FormValues>(() => initialValues(meta, config.credentials))
  const [formErrors, setFormErrors] = useState<Record<string, string>>({})
  const [saved, setSaved] = useState(false)
  const update = useAction((payload: { name: string; config: Record<string, unknown> & { provider: string } }) =>
    client.telephonyConfigs.update({ path: { config_id: config.id }, payload })
  )
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setSaved(false)
    const built = toConfig(meta, values)
    if ("errors" in built) return setFormErrors(built.errors)
    setFormErrors({})
    const result = await update.run({ name, config: built.config })
    if (Either.isRight(result)) {
      // The stored secrets come back masked: the form shows them so from now on.
      setValues(initialValues(meta, result.right.credentials))
      setSaved(true)
      onSaved()
    }
  }
  const serverErrors = configIssues(validationIssues(update.error))
  const errorsOf = (field: string) => [...(formErrors[field] !== undefined ? [formErrors[field]] : []), ...(serverErrors[field] ?? [])]
  return (
    <form className="card" onSubmit={submit} noValidate aria-labelledby="credentials-heading">
      <h2 id="credentials-heading">Settings</h2>
      <Field label="Name" required errors={errorsOf("name")}>
        {(props) => <input {...props} value={name} maxLength={64} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <ProviderFields meta={meta} values={values} onChange={setValues} editing errors={Object.fromEntries(meta.fields.map((f) => [f.name, errorsOf(f.name)]))} />
      <ApiError error={update.error} title="Not saved" />
      <p role="status">{saved ? "Saved." : ""}</p>
      <div className="actions">
        <button type="submit" className="primary" disabled={update.pending}>{update.pending ? "Saving…" : "Save settings"}</button>
      </div>
    </form>
  )
}
