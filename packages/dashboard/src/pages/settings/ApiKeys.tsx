/**
 * Settings → API keys: the person's keys (archived ones on request), creating one (the full key is
 * shown once, with a copy button), archiving and, for administrators, reactivating.
 */
import type { ApiKeyId } from "@agentline/api/Ids"
import { CreateApiKeyRequest } from "@agentline/api/api-keys/ApiKey"
import { Effect, Either } from "effect"
import { type FormEvent, useEffect, useRef, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import { CopyButton } from "../../components/CopyButton.js"
import { formatTime } from "../../components/format.js"
import { useUser } from "../../session.js"

interface NewKey {
  readonly name: string
  readonly apiKey: string
}

export const ApiKeysPage = () => {
  const user = useUser()
  const [showArchived, setShowArchived] = useState(false)
  const keys = useApi(() => client.apiKeys.list({ urlParams: { include_archived: showArchived } }), [showArchived])
  const [name, setName] = useState("")
  const [created, setCreated] = useState<NewKey | undefined>(undefined)
  const [confirming, setConfirming] = useState<ApiKeyId | undefined>(undefined)
  const [announcement, setAnnouncement] = useState("")
  const createdHeading = useRef<HTMLHeadingElement>(null)
  const create = useAction((name: string) =>
    Effect.flatMap(decodePayload(CreateApiKeyRequest, { name }), (payload) => client.apiKeys.create({ payload }))
  )
  const archive = useAction((id: ApiKeyId) => client.apiKeys.archive({ path: { api_key_id: id } }))
  const reactivate = useAction((id: ApiKeyId) => client.apiKeys.reactivate({ path: { api_key_id: id } }))

  useEffect(() => {
    if (created !== undefined) createdHeading.current?.focus()
  }, [created])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await create.run(name)
    if (Either.isRight(result)) {
      setCreated({ name: result.right.name, apiKey: result.right.api_key })
      setName("")
      keys.reload()
    }
  }

  const doArchive = async (id: ApiKeyId, keyName: string) => {
    const result = await archive.run(id)
    setConfirming(undefined)
    if (Either.isRight(result)) {
      setAnnouncement(`Archived the key “${keyName}”.`)
      keys.reload()
    }
  }
  const doReactivate = async (id: ApiKeyId, keyName: string) => {
    const result = await reactivate.run(id)
    if (Either.isRight(result)) {
      setAnnouncement(`Reactivated the key “${keyName}”.`)
      keys.reload()
    }
  }

  const nameError = fieldError(create.error, "name")
  return (
    <>
      <h2>API keys</h2>
      <p className="hint">
        Programs call the API with an API key in the <code>X-API-Key</code> header. A key acts as you, with your role.
      </p>

      {created !== undefined && (
        <div className="card success-card" aria-labelledby="new-key-heading">
          <h3 id="new-key-heading" ref={createdHeading} tabIndex={-1}>Your new key “{created.name}”</h3>
          <p>Copy it now: it is shown only once. Anyone with it can use the API as you.</p>
          <div className="secret">
            <label htmlFor="new-api-key" className="visually-hidden">New API key</label>
            <input id="new-api-key" readOnly value={created.apiKey} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={created.apiKey} label="Copy key" fallbackInputId="new-api-key" />
          </div>
          <div className="actions">
            <button type="button" onClick={() => setCreated(undefined)}>I have copied it</button>
          </div>
        </div>
      )}

      <form className="card" onSubmit={submit} aria-labelledby="create-key-heading">
        <h3 id="create-key-heading">Create a key</h3>
        <ApiError error={create.error} title="The key was not created" />
        <label htmlFor="api-key-name">Name</label>
        <input
          id="api-key-name"
          required
          maxLength={100}
          placeholder="e.g. CRM integration"
          aria-invalid={nameError !== undefined}
          aria-describedby="api-key-name-hint"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <p id="api-key-name-hint" className="hint">To recognize the key by later (up to 100 characters).</p>
        <div className="actions">
          <button type="submit" className="primary" disabled={create.pending}>
            {create.pending ? "Creating…" : "Create key"}
          </button>
        </div>
      </form>

      <div className="list-header">
        <h3 id="keys-heading">Your keys</h3>
        <label className="checkbox">
          <input type="checkbox" checked={showArchived} onChange={(e) => setShowArchived(e.target.checked)} />
          Show archived keys
        </label>
      </div>
      <p role="status" className="visually-hidden">{announcement}</p>
      <ApiError error={keys.error} title="The keys could not be loaded" />
      <ApiError error={archive.error} title="The key was not archived" />
      <ApiError error={reactivate.error} title="The key was not reactivated" />
      {keys.data === undefined
        ? keys.loading && <p className="loading" role="status">Loading keys…</p>
        : keys.data.length === 0
        ? <p>No keys yet.</p>
        : (
          <div className="table-wrap">
            <table className="stack" aria-labelledby="keys-heading">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col"><span className="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {keys.data.map((key) => (
                  <tr key={key.id}>
                    <td data-label="Name">{key.name}</td>
                    <td data-label="Key"><code>{key.key_prefix}…</code></td>
                    <td data-label="Status">{key.is_active ? "Active" : `Archived ${formatTime(key.archived_at)}`}</td>
                    <td data-label="Created">{formatTime(key.created_at)}</td>
                    <td data-label="Last used">{key.last_used_at === null ? "Never" : formatTime(key.last_used_at)}</td>
                    <td>
                      {key.is_active
                        ? confirming === key.id
                          ? (
                            <span className="inline-confirm" role="group" aria-label={`Archive ${key.name}?`}>
                              <span>Archive? Programs using it stop working.</span>
                              <button
                                type="button"
                                className="danger"
                                autoFocus
                                disabled={archive.pending}
                                onClick={() => doArchive(key.id, key.name)}
                              >
                                Yes, archive “{key.name}”
                              </button>
                              <button type="button" onClick={() => setConfirming(undefined)}>Cancel</button>
                            </span>
                          )
                          : (
                            <button type="button" className="danger" onClick={() => setConfirming(key.id)}>
                              Archive<span className="visually-hidden"> {key.name}</span>
                            </button>
                          )
                        : user.role === "admin"
                        ? (
                          <button type="button" disabled={reactivate.pending} onClick={() => doReactivate(key.id, key.name)}>
                            Reactivate<span className="visually-hidden"> {key.name}</span>
                          </button>
                        )
                        : <span className="hint">An administrator can reactivate it.</span>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </>
  )
}
