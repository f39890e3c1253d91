/**
 * Settings → Credentials: the organization's stored credentials (`/credentials`), which webhook nodes
 * and tools name by UUID. Add one (its secret goes to the server and never comes back), rename it,
 * change its description or replace its secret, delete it.
 */
import { type Credential, type CredentialType } from "@agentline/api/credentials/Credentials"
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { ConfirmButton } from "../../components/Confirm.js"
import { formatTime } from "../../components/format.js"
import { Copyable, Field, Loading } from "../agents/ui.js"
import { CREDENTIAL_TYPES, credentialData, DATA_FIELDS } from "./credentialForm.js"

interface Form {
  readonly name: string
  readonly description: string
  readonly type: CredentialType
  readonly values: Readonly<Record<string, string>>
}

const blank: Form = { name: "", description: "", type: "api_key", values: {} }

const CredentialFields = ({ editing, form, onChange }: { readonly form: Form; readonly onChange: (form: Form) => void; readonly editing: boolean }) => (
  <>
    <Field label="Name" required>{(props) => <input {...props} value={form.name} onChange={(e) => onChange({ ...form, name: e.target.value })} />}</Field>
    <Field label="Description">
      {(props) => <input {...props} value={form.description} onChange={(e) => onChange({ ...form, description: e.target.value })} />}
    </Field>
    <Field label="Type">
      {(props) => (
        <select {...props} value={form.type} onChange={(e) => onChange({ ...form, type: e.target.value as CredentialType, values: {} })}>
          {CREDENTIAL_TYPES.map((t) => <option key={t.type} value={t.type}>{t.label}</option>)}
        </select>
      )}
    </Field>
    {DATA_FIELDS[form.type].map((field) => (
      <Field
        key={field.name}
        label={field.label}
        required={field.required && !editing}
        hint={editing && field.secret ? "Not shown: leave it empty to keep the stored value." : undefined}
      >
        {(props) => (
          <input
            {...props}
            type={field.secret ? "password" : "text"}
            autoComplete={field.secret ? "new-password" : "off"}
            placeholder={field.placeholder}
            value={form.values[field.name] ?? ""}
            onChange={(e) => onChange({ ...form, values: { ...form.values, [field.name]: e.target.value } })}
          />
        )}
      </Field>
    ))}
  </>
)

export const CredentialsPage = () => {
  const credentials = useApi(() => client.credentials.list(), [])
  const [form, setForm] = useState<Form>(blank)
  const [notice, setNotice] = useState("")
  const create = useAction((f: Form) =>
    client.credentials.create({
      payload: {
        name: f.name.trim(),
        description: f.description.trim() === "" ? null : f.description.trim(),
        credential_type: f.type,
        credential_data: credentialData(f.type, f.values, false) ?? {}
      }
    })
  )
  const remove = useAction((uuid: string) => client.credentials.delete({ path: { credential_uuid: uuid } }))
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await create.run(form)
    if (Either.isRight(result)) {
      setNotice(`Added the credential “${result.right.name}”.`)
      setForm(blank)
      credentials.reload()
    }
  }
  return (
    <>
      <h2>Credentials</h2>
      <p className="hint">Secrets for the requests agents make (webhook nodes, tools). They are encrypted and never shown again; a node names one by its UUID.</p>
      <p role="status">{notice}</p>
      <ApiError error={remove.error} title="Not deleted" />
      {credentials.data === undefined ? (credentials.error !== undefined ? <ApiError error={credentials.error} /> : <Loading what="the credentials" />) : (
        credentials.data.length === 0 ? <p className="hint">No stored credentials yet.</p> : (
          <ul className="item-cards">
            {credentials.data.map((credential) => (
              <CredentialCard
                key={credential.uuid}
                credential={credential}
                onSaved={(message) => { setNotice(message); credentials.reload() }}
                onDelete={async () => {
                  if (Either.isRight(await remove.run(credential.uuid))) {
                    setNotice(`Deleted the credential “${credential.name}”.`)
                    credentials.reload()
                  }
                }}
              />
            ))}
          </ul>
        )
      )}
      <form onSubmit={submit} className="card" aria-labelledby="new-credential-heading">
        <h3 id="new-credential-heading">Add a credential</h3>
        <CredentialFields form={form} onChange={setForm} editing={false} />
        <ApiError error={create.error} title="The credential was not added" />
        <button type="submit" className="primary" disabled={create.pending}>Add credential</button>
      </form>
    </>
  )
}

const CredentialCard = ({ credential, onDelete, onSaved }: {
  readonly credential: Credential
  readonly onSaved: (message: string) => void
  readonly onDelete: () => void
}) => {
  const [editing, setEditing] = useState<Form | null>(null)
  const update = useAction((f: Form) => {
    const data = credentialData(f.type, f.values, true)
    return client.credentials.update({
      path: { credential_uuid: credential.uuid },
      payload: {
        name: f.name.trim(),
        description: f.description.trim() === "" ? null : f.description.trim(),
        ...(f.type !== credential.credential_type || data !== null ? { credential_type: f.type, credential_data: data ?? {} } : {})
      }
    })
  })
  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (editing === null) return
    const result = await update.run(editing)
    if (Either.isRight(result)) {
      setEditing(null)
      onSaved(`Saved the credential “${result.right.name}”.`)
    }
  }
  const typeLabel = CREDENTIAL_TYPES.find((t) => t.type === credential.credential_type)?.label ?? credential.credential_type
  return (
    <li className="card" aria-label={`Credential ${credential.name}`}>
      <p><strong>{credential.name}</strong> · {typeLabel} · added {formatTime(credential.created_at)}</p>
      {credential.description !== null && <p>{credential.description}</p>}
      <Copyable label={`UUID of ${credential.name}`} value={credential.uuid} />
      {editing === null ? (
        <div className="actions">
          <button type="button" onClick={() => setEditing({ name: credential.name, description: credential.description ?? "", type: credential.credential_type, values: {} })}>
            Edit {credential.name}
          </button>
          <ConfirmButton label={`Delete ${credential.name}`} confirm={`Yes, delete “${credential.name}”`} onConfirm={onDelete} />
        </div>
      ) : (
        <form onSubmit={save} aria-label={`Edit ${credential.name}`}>
          <CredentialFields form={editing} onChange={setEditing} editing />
          <ApiError error={update.error} title="Not saved" />
          <div className="actions">
            <button type="submit" className="primary" disabled={update.pending}>Save credential</button>
            <button type="button" onClick={() => setEditing(null)}>Cancel</button>
          </div>
        </form>
      )}
    </li>
  )
}
