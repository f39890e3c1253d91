/**
 * Settings → Organization (administrators): its name and its concurrency limit (calls in progress at
 * once across all campaigns and single calls).
 */
import { ConcurrencyLimitUpdate, MAX_CONCURRENT_CALL_LIMIT } from "@agentline/api/organizations/Organization"
import { Effect, Either } from "effect"
import { type FormEvent, useEffect, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"

export const OrganizationPage = () => {
  const organization = useApi(() => client.organizations.current(), [])
  const [limit, setLimit] = useState("")
  const [saved, setSaved] = useState<number | undefined>(undefined)
  const save = useAction((limit: number) =>
    Effect.flatMap(
      decodePayload(ConcurrencyLimitUpdate, { concurrent_call_limit: limit }),
      (payload) => client.organizations.setConcurrentCallLimit({ payload })
    )
  )

  useEffect(() => {
    if (organization.data !== undefined) setLimit(String(organization.data.concurrent_call_limit))
  }, [organization.data])

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setSaved(undefined)
    const result = await save.run(Number(limit))
    if (Either.isRight(result)) {
      setSaved(result.right.concurrent_call_limit)
      organization.reload()
    }
  }

  const limitError = fieldError(save.error, "concurrent_call_limit")
  return (
    <>
      <h2>Organization</h2>
      <ApiError error={organization.error} title="The organization could not be loaded" />
      {organization.data === undefined
        ? organization.loading && <p className="loading" role="status">Loading…</p>
        : (
          <>
            <dl className="facts">
              <dt>Name</dt>
              <dd>{organization.data.name}</dd>
              <dt>Current concurrency limit</dt>
              <dd data-testid="current-limit">{organization.data.concurrent_call_limit} calls at once</dd>
            </dl>
            <form className="card" onSubmit={submit} aria-labelledby="limit-heading">
              <h3 id="limit-heading">Concurrency limit</h3>
              {saved !== undefined && (
                <p className="success" role="status">Saved: at most {saved} calls at once.</p>
              )}
              <ApiError error={save.error} title="The limit was not changed" />
              <label htmlFor="concurrency-limit">Calls in progress at once</label>
              <input
                id="concurrency-limit"
                type="number"
                inputMode="numeric"
                min={1}
                max={MAX_CONCURRENT_CALL_LIMIT}
                step={1}
                required
                aria-invalid={limitError !== undefined}
                aria-describedby="concurrency-limit-hint"
                value={limit}
                onChange={(e) => setLimit(e.target.value)}
              />
              <p id="concurrency-limit-hint" className="hint">
                Across all campaigns and single calls of the organization; 1 to {MAX_CONCURRENT_CALL_LIMIT}. Calls
                beyond it wait for a free line.
              </p>
              <div className="actions">
                <button type="submit" className="primary" disabled={save.pending}>
                  {save.pending ? "Saving…" : "Save limit"}
                </button>
              </div>
            </form>
          </>
        )}
    </>
  )
}
