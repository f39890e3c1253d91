/**
 * Settings → Webhooks: the organization's event webhook endpoints (`/organizations/webhooks`). Add one
 * (its signing secret is shown once), change its address, events or description, disable or enable
 * it, rotate its secret, delete it; its deliveries with each attempt, and a re-send of any of them.
 */
import { WebhookDeliveryId, WebhookEndpointId } from "@agentline/api/Ids"
import {
  CreateWebhookEndpointRequest,
  type WebhookEndpoint,
  WebhookEventType,
  UpdateWebhookEndpointRequest
} from "@agentline/api/webhooks/Webhooks"
import { Effect, Either } from "effect"
import { type FormEvent, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { ConfirmButton } from "../../components/Confirm.js"
import { formatTime } from "../../components/format.js"
import { Badge, Checkbox, Copyable, Field, Loading } from "../agents/ui.js"

const EVENTS = WebhookEventType.literals

interface EndpointForm {
  readonly url: string
  readonly description: string
  readonly events: ReadonlyArray<string>
  readonly enabled: boolean
}

const EndpointFields = ({ form, onChange }: { readonly form: EndpointForm; readonly onChange: (form: EndpointForm) => void }) => (
  <>
    <Field label="Address (URL)" required hint="Where the events are POSTed, e.g. https://example.com/hooks/agentline.">
      {(props) => <input {...props} type="url" value={form.url} onChange={(e) => onChange({ ...form, url: e.target.value })} />}
    </Field>
    <Field label="Description">
      {(props) => <input {...props} value={form.description} onChange={(e) => onChange({ ...form, description: e.target.value })} />}
    </Field>
    <fieldset>
      <legend>Events</legend>
      {EVENTS.map((event) => (
        <Checkbox
          key={event}
          label={event}
          checked={form.events.includes(event)}
          onChange={(on) => onChange({ ...form, events: on ? [...form.events, event] : form.events.filter((e) => e !== event) })}
        />
      ))}
    </fieldset>
    <Checkbox label="Enabled" checked={form.enabled} onChange={(enabled) => onChange({ ...form, enabled })} />
  </>
)

const blank: EndpointForm = { url: "", description: "", events: ["run.ended"], enabled: true }
const request = (form: EndpointForm) => ({
  url: form.url.trim(),
  description: form.description.trim() === "" ? null : form.description.trim(),
  event_types: form.events,
  enabled: form.enabled
})

export const WebhooksPage = () => {
  const endpoints = useApi(() => client.webhooks.list(), [])
  const [form, setForm] = useState<EndpointForm>(blank)
  const [secret, setSecret] = useState<{ readonly url: string; readonly secret: string } | null>(null)
  const [notice, setNotice] = useState("")
  const create = useAction((f: EndpointForm) =>
    Effect.flatMap(decodePayload(CreateWebhookEndpointRequest, request(f)), (payload) => client.webhooks.create({ payload }))
  )
  const remove = useAction((id: number) => client.webhooks.delete({ path: { endpoint_id: WebhookEndpointId.make(id) } }))
  const rotate = useAction((id: number) => client.webhooks.rotateSecret({ path: { endpoint_id: WebhookEndpointId.make(id) } }))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await create.run(form)
    if (Either.isRight(result)) {
      setSecret({ url: result.right.url, secret: result.right.secret })
      setNotice(`Added the endpoint ${result.right.url}.`)
      setForm(blank)
      endpoints.reload()
    }
  }

  return (
    <>
      <h2>Webhooks</h2>
      <p className="hint">
        Events are POSTed to each endpoint, signed as Standard Webhooks (headers webhook-id, webhook-timestamp,
        webhook-signature) with the endpoint's secret, and retried for about a day when the receiver fails.
      </p>
      <p role="status">{notice}</p>
      {secret !== null && (
        <div className="card" aria-labelledby="secret-heading">
          <h3 id="secret-heading">Signing secret of {secret.url}</h3>
          <p>Give it to your receiver's verifier now: it is not shown again.</p>
          <Copyable label="Signing secret" value={secret.secret} />
          <button type="button" onClick={() => setSecret(null)}>I have copied it</button>
        </div>
      )}
      <ApiError error={remove.error} title="Not deleted" />
      <ApiError error={rotate.error} title="Not rotated" />
      {endpoints.data === undefined ? (endpoints.error !== undefined ? <ApiError error={endpoints.error} /> : <Loading what="the endpoints" />) : (
        endpoints.data.endpoints.length === 0 ? <p className="hint">No webhook endpoints yet.</p> : (
          <ul className="item-cards">
            {endpoints.data.endpoints.map((endpoint) => (
              <EndpointCard
                key={endpoint.id}
                endpoint={endpoint}
                onChanged={(message) => { setNotice(message); endpoints.reload() }}
                onDelete={async () => {
                  if (Either.isRight(await remove.run(endpoint.id))) { setNotice(`Deleted the endpoint ${endpoint.url}.`); endpoints.reload() }
                }}
                onRotate={async () => {
                  const result = await rotate.run(endpoint.id)
                  if (Either.isRight(result)) setSecret({ url: result.right.url, secret: result.right.secret })
                }}
              />
            ))}
          </ul>
        )
      )}
      <form onSubmit={submit} className="card" aria-labelledby="new-webhook-heading">
        <h3 id="new-webhook-heading">Add an endpoint</h3>
        <EndpointFields form={form} onChange={setForm} />
        <ApiError error={create.error} title="The endpoint was not added" />
        <button type="submit" className="primary" disabled={create.pending}>Add endpoint</button>
      </form>
    </>
  )
}

const EndpointCard = ({ endpoint, onChanged, onDelete, onRotate }: {
  readonly endpoint: WebhookEndpoint
  readonly onChanged: (message: string) => void
  readonly onDelete: () => void
  readonly onRotate: () => void
}) => {
  const [editing, setEditing] = useState<EndpointForm | null>(null)
  const [showDeliveries, setShowDeliveries] = useState(false)
  const update = useAction((f: EndpointForm) =>
    Effect.flatMap(
      decodePayload(UpdateWebhookEndpointRequest, request(f)),
      (payload) => client.webhooks.update({ path: { endpoint_id: endpoint.id }, payload })
    )
  )
  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (editing === null) return
    const result = await update.run(editing)
    if (Either.isRight(result)) {
      setEditing(null)
      onChanged(`Saved the endpoint ${result.right.url}.`)
    }
  }
  return (
    <li className="card" aria-label={`Endpoint ${endpoint.url}`}>
      <p>
        <strong>{endpoint.url}</strong>{" "}
        {endpoint.enabled ? <Badge tone="good">enabled</Badge> : <Badge tone="warn">disabled</Badge>}
        {endpoint.failing_since !== null && <> <Badge tone="bad">failing since {formatTime(endpoint.failing_since)}</Badge></>}
      </p>
      {endpoint.description !== null && <p>{endpoint.description}</p>}
      <p>Events: {endpoint.event_types.join(", ")}</p>
      {endpoint.disabled_reason !== null && <p className="hint">Disabled by the server: {endpoint.disabled_reason}</p>}
      {editing === null ? (
        <div className="actions">
          <button
            type="button"
            onClick={() => setEditing({ url: endpoint.url, description: endpoint.description ?? "", events: endpoint.event_types, enabled: endpoint.enabled })}
          >
            Edit {endpoint.url}
          </button>
          <button type="button" aria-expanded={showDeliveries} onClick={() => setShowDeliveries(!showDeliveries)}>Deliveries of {endpoint.url}</button>
          <button type="button" onClick={onRotate}>Rotate secret of {endpoint.url}</button>
          <ConfirmButton label={`Delete ${endpoint.url}`} confirm={`Yes, delete ${endpoint.url}`} onConfirm={onDelete} />
        </div>
      ) : (
        <form onSubmit={save} aria-label={`Edit ${endpoint.url}`}>
          <EndpointFields form={editing} onChange={setEditing} />
          <ApiError error={update.error} title="Not saved" />
          <div className="actions">
            <button type="submit" className="primary" disabled={update.pending}>Save endpoint</button>
            <button type="button" onClick={() => setEditing(null)}>Cancel</button>
          </div>
        </form>
      )}
      {showDeliveries && <Deliveries endpointId={endpoint.id} />}
    </li>
  )
}

const Deliveries = ({ endpointId }: { readonly endpointId: WebhookEndpointId }) => {
  const deliveries = useApi(() => client.webhooks.deliveries({ path: { endpoint_id: endpointId }, urlParams: { page: 1, limit: 50 } }), [endpointId])
  const resend = useAction((id: number) =>
    client.webhooks.resend({ path: { endpoint_id: endpointId, delivery_id: WebhookDeliveryId.make(id) } })
  )
  const [notice, setNotice] = useState("")
  if (deliveries.data === undefined) return deliveries.error !== undefined ? <ApiError error={deliveries.error} /> : <Loading what="the deliveries" />
  const list = deliveries.data.deliveries
  return (
    <section aria-label="Deliveries">
      <p role="status">{notice}</p>
      <ApiError error={resend.error} title="Not re-sent" />
      {list.length === 0 ? <p className="hint">No deliveries yet: events are sent as they happen.</p> : (
        <div className="table-wrap">
          <table className="stack">
            <thead>
              <tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Last answer</th><th scope="col">Created</th><th scope="col"><span className="visually-hidden">Actions</span></th></tr>
            </thead>
            <tbody>
              {list.map((d) => {
                const last = d.attempts.at(-1)
                return (
                  <tr key={d.id}>
                    <td data-label="Event">{d.event_type}</td>
                    <td data-label="Status"><Badge tone={d.status === "delivered" ? "good" : d.status === "failed" ? "bad" : "info"}>{d.status}</Badge></td>
                    <td data-label="Attempts">{d.attempt_count}</td>
                    <td data-label="Last answer">{last === undefined ? "—" : last.status_code !== null ? `HTTP ${last.status_code}` : last.error ?? "no answer"}</td>
                    <td data-label="Created">{formatTime(d.created_at)}</td>
                    <td>
                      <button
                        type="button"
                        disabled={resend.pending}
                        onClick={async () => {
                          if (Either.isRight(await resend.run(d.id))) { setNotice(`Re-sent the ${d.event_type} event.`); deliveries.reload() }
                        }}
                      >
                        Re-send {d.event_type} #{d.id}
                      </button>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}
