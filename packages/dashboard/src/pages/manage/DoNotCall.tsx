/**
 * Settings → Do not call: the organization's do-not-call list (`/organizations/do-not-call`). Add
 * numbers (one per line), import a CSV with a `phone_number` column, look a number up, page through
 * the list, and remove a number (administrators: calling someone who asked not to be called).
 */
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { client } from "../../api/client.js"
import { runApi, useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { ConfirmButton } from "../../components/Confirm.js"
import { formatTime } from "../../components/format.js"
import { useUser } from "../../session.js"
import { Field, Loading } from "../agents/ui.js"
import { UploadFailed, uploadCsv } from "../campaigns/upload.js"

/** The numbers of a text area: one per line (commas and semicolons separate too), blanks dropped. */
export const numbersOf = (text: string): ReadonlyArray<string> =>
  text.split(/[\n,;]+/).map((n) => n.trim()).filter((n) => n !== "")

const PAGE_SIZE = 50

export const DoNotCallPage = () => {
  const admin = useUser().role === "admin"
  const [page, setPage] = useState(1)
  const list = useApi(() => client.doNotCall.list({ urlParams: { page, limit: PAGE_SIZE } }), [page])
  const [numbers, setNumbers] = useState("")
  const [reason, setReason] = useState("")
  const [country, setCountry] = useState("")
  const [notice, setNotice] = useState("")
  const [search, setSearch] = useState("")
  const [importError, setImportError] = useState<unknown>(undefined)
  const [importing, setImporting] = useState(false)
  const add = useAction((phones: ReadonlyArray<string>, why: string, code: string) =>
    client.doNotCall.add({
      payload: { phone_numbers: phones, reason: why.trim() === "" ? null : why.trim(), country_code: code.trim() === "" ? null : code.trim().toUpperCase() }
    })
  )
  const check = useAction((phone: string) => client.doNotCall.check({ urlParams: { phone_number: phone } }))
  const remove = useAction((phone: string) => client.doNotCall.remove({ urlParams: { phone_number: phone } }))
  const [found, setFound] = useState<{ readonly phone: string; readonly listed: boolean; readonly since: string | null } | null>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await add.run(numbersOf(numbers), reason, country)
    if (Either.isRight(result)) {
      setNotice(`Added ${result.right.added} number${result.right.added === 1 ? "" : "s"}; ${result.right.already_listed} already listed.`)
      setNumbers("")
      list.reload()
    }
  }
  const lookUp = async (event: FormEvent) => {
    event.preventDefault()
    const result = await check.run(search.trim())
    if (Either.isRight(result)) setFound({ phone: result.right.phone_number, listed: result.right.listed, since: result.right.entry?.created_at ?? null })
  }
  const importFile = async (file: File) => {
    setImportError(undefined)
    setImporting(true)
    try {
      const presigned = await runApi(client.uploads.presign({ payload: { file_name: file.name, file_size: file.size, content_type: "text/csv" } }))
      if (Either.isLeft(presigned)) return setImportError(presigned.left)
      try {
        await uploadCsv(presigned.right.upload_url, file, () => undefined)
      } catch (error) {
        return setImportError(error instanceof UploadFailed ? new Error(`The file was not uploaded: ${error.detail}`) : error)
      }
      const imported = await runApi(client.doNotCall.importCsv({ payload: { file_key: presigned.right.file_key, reason: reason.trim() === "" ? null : reason.trim() } }))
      if (Either.isLeft(imported)) return setImportError(imported.left)
      setNotice(`Imported ${file.name}: ${imported.right.added} added, ${imported.right.already_listed} already listed.`)
      list.reload()
    } finally {
      setImporting(false)
    }
  }
  const removeNumber = async (phone: string) => {
    if (Either.isRight(await remove.run(phone))) {
      setNotice(`Removed ${phone} from the list.`)
      if (found?.phone === phone) setFound(null)
      list.reload()
    }
  }

  return (
    <>
      <h2>Do not call</h2>
      <p className="hint">Campaigns skip these numbers. Numbers are stored normalized (E.164); national forms need a country.</p>
      <p role="status">{notice}</p>
      <form onSubmit={lookUp} className="inline-form" aria-label="Search the list">
        <Field label="Look up a number">{(props) => <input {...props} type="search" value={search} onChange={(e) => setSearch(e.target.value)} />}</Field>
        <button type="submit" disabled={search.trim() === "" || check.pending}>Look up</button>
      </form>
      <ApiError error={check.error} />
      {found !== null && (
        <p data-testid="lookup-result">
          {found.listed ? `${found.phone} is on the list (since ${formatTime(found.since)}).` : `${found.phone} is not on the list.`}
          {found.listed && admin && <> <ConfirmButton label={`Remove ${found.phone}`} confirm={`Yes, remove ${found.phone}`} onConfirm={() => void removeNumber(found.phone)} /></>}
        </p>
      )}
      <ApiError error={remove.error} title="Not removed" />
      {list.data === undefined ? (list.error !== undefined ? <ApiError error={list.error} /> : <Loading what="the list" />) : (
        <section aria-labelledby="dnc-list-heading">
          <h3 id="dnc-list-heading">Listed numbers ({list.data.total_count})</h3>
          {list.data.entries.length === 0 ? <p className="hint">No numbers on the list.</p> : (
            <div className="table-wrap">
              <table className="stack">
                <thead><tr><th scope="col">Number</th><th scope="col">Reason</th><th scope="col">Source</th><th scope="col">Added</th>{admin && <th scope="col"><span className="visually-hidden">Actions</span></th>}</tr></thead>
                <tbody>
                  {list.data.entries.map((entry) => (
                    <tr key={entry.phone_number}>
                      <td data-label="Number">{entry.phone_number}</td>
                      <td data-label="Reason">{entry.reason ?? "—"}</td>
                      <td data-label="Source">{entry.source === "run" ? `asked during run ${entry.run_id ?? "?"}` : "added"}</td>
                      <td data-label="Added">{formatTime(entry.created_at)}</td>
                      {admin && <td><ConfirmButton label={`Remove ${entry.phone_number}`} confirm={`Yes, remove ${entry.phone_number}`} onConfirm={() => void removeNumber(entry.phone_number)} /></td>}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {list.data.total_pages > 1 && (
            <nav className="pager" aria-label="Pages of the list">
              <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>Previous page</button>
              <span>Page {page} of {list.data.total_pages}</span>
              <button type="button" onClick={() => setPage(page + 1)} disabled={page >= list.data.total_pages}>Next page</button>
            </nav>
          )}
        </section>
      )}
      <form onSubmit={submit} className="card" aria-labelledby="dnc-add-heading">
        <h3 id="dnc-add-heading">Add numbers</h3>
        <Field label="Numbers" required hint="One per line, e.g. +14155550100.">
          {(props) => <textarea {...props} rows={4} value={numbers} onChange={(e) => setNumbers(e.target.value)} />}
        </Field>
        <Field label="Reason">{(props) => <input {...props} value={reason} onChange={(e) => setReason(e.target.value)} />}</Field>
        <Field label="Country of national numbers" hint="Two letters, e.g. US; leave empty for numbers written with +.">
          {(props) => <input {...props} maxLength={2} value={country} onChange={(e) => setCountry(e.target.value)} />}
        </Field>
        <ApiError error={add.error} title="Not added" />
        <button type="submit" className="primary" disabled={add.pending || numbersOf(numbers).length === 0}>Add to the list</button>
      </form>
      <div className="card">
        <h3>Import a CSV</h3>
        <Field label="CSV file with a phone_number column" hint="The reason above, if any, is given to every imported number.">
          {(props) => (
            <input
              {...props}
              type="file"
              accept=".csv,text/csv"
              disabled={importing}
              onChange={(e) => {
                const file = e.target.files?.[0]
                if (file !== undefined) void importFile(file)
                e.target.value = ""
              }}
            />
          )}
        </Field>
        {importing && <p role="status">Importing…</p>}
        <ApiError error={importError} title="Not imported" />
      </div>
    </>
  )
}
