/**
 * Creating a campaign: a contacts CSV dropped on the page (or chosen), uploaded with a progress bar
 * through a presigned URL, then the campaign created from it with its settings. A refused file's row
 * problems are listed one by one; the uploaded file is reused when only settings need fixing.
 */
import { TelephonyConfigurationId, WorkflowId } from "@agentline/api/Ids"
import { Effect, Either } from "effect"
import { type DragEvent, type FormEvent, useId, useRef, useState } from "react"
import { Link, useNavigate } from "react-router"
import { client } from "../../api/client.js"
import { runApi, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Field } from "../agents/ui.js"
import { fileProblem, rowProblems, type SettingsForm, settingsForm, settingsRequest } from "./campaignView.js"
import { SettingsFields, settingsErrors } from "./SettingsFields.js"
import { UploadFailed, uploadCsv, type UploadProgress } from "./upload.js"

const sizeText = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`)

type Phase =
  | { readonly step: "idle" }
  | { readonly step: "uploading"; readonly progress: UploadProgress | null }
  | { readonly step: "creating" }

export const NewCampaign = () => {
  const navigate = useNavigate()
  const agents = useApi(() => client.workflows.list({ urlParams: { status: "active" } }), [])
  const configs = useApi(() => client.telephonyConfigs.list(), [])
  const [name, setName] = useState("")
  const [agent, setAgent] = useState("")
  const [config, setConfig] = useState("")
  const [file, setFile] = useState<File | null>(null)
  const [dragging, setDragging] = useState(false)
  const [settings, setSettings] = useState<SettingsForm>(() => settingsForm())
  const [localErrors, setLocalErrors] = useState<Record<string, string>>({})
  const [phase, setPhase] = useState<Phase>({ step: "idle" })
  const [failure, setFailure] = useState<{ readonly error?: unknown; readonly rows?: ReadonlyArray<string>; readonly message?: string } | null>(null)
  // The file already uploaded, so fixing a setting does not upload it again.
  const uploaded = useRef<{ readonly file: File; readonly key: string } | null>(null)
  const inputId = useId()

  const pick = (chosen: File | undefined) => {
    if (chosen === undefined) return
    setFile(chosen)
    setFailure(null)
    const problem = fileProblem(chosen)
    setLocalErrors((e) => {
      const { file: _file, ...rest } = e
      return problem === null ? rest : { ...rest, file: problem }
    })
  }
  const onDrop = (event: DragEvent) => {
    event.preventDefault()
    setDragging(false)
    pick(event.dataTransfer.files[0])
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setFailure(null)
    const errors: Record<string, string> = {}
    if (name.trim() === "") errors.name = "Give the campaign a name"
    if (agent === "") errors.workflow_id = "Choose the agent that places the calls"
    if (file === null) errors.file = "Drop or choose the contacts file"
    else {
      const problem = fileProblem(file)
      if (problem !== null) errors.file = problem
    }
    const built = settingsRequest(settings)
    if ("errors" in built) Object.assign(errors, built.errors)
    setLocalErrors(errors)
    if (Object.keys(errors).length > 0 || file === null || "errors" in built) return

    let key = uploaded.current?.file === file ? uploaded.current.key : null
    if (key === null) {
      setPhase({ step: "uploading", progress: null })
      const presigned = await runApi(client.uploads.presign({ payload: { file_name: file.name, file_size: file.size, content_type: "text/csv" } }))
      if (Either.isLeft(presigned)) {
        setPhase({ step: "idle" })
        return setFailure({ error: presigned.left })
      }
      try {
        await uploadCsv(presigned.right.upload_url, file, (progress) => setPhase({ step: "uploading", progress }))
      } catch (error) {
        setPhase({ step: "idle" })
        return setFailure({ message: error instanceof UploadFailed ? `The upload failed: ${error.detail}` : `The upload failed: ${String(error)}` })
      }
      key = presigned.right.file_key
      uploaded.current = { file, key }
    }
    setPhase({ step: "creating" })
    const created = await runApi(
      client.campaigns.create({
        payload: {
          name: name.trim(),
          workflow_id: WorkflowId.make(Number(agent)),
          source_type: "csv",
          source_id: key,
          telephony_configuration_id: config === "" ? null : TelephonyConfigurationId.make(Number(config)),
          ...built.request
        }
      }).pipe(Effect.map((c) => c.id))
    )
    setPhase({ step: "idle" })
    if (Either.isRight(created)) return navigate(`/campaigns/${created.right}`)
    const error = created.left as { _tag?: string; detail?: unknown }
    // A refused file is a 400 whose message lists the rows at fault.
    if (error._tag === "BadRequest" && typeof error.detail === "string") {
      uploaded.current = null
      setFailure({ rows: rowProblems(error.detail) })
    } else setFailure({ error: created.left })
  }

  const fieldErrors = settingsErrors(failure?.error, localErrors)
  const busy = phase.step !== "idle"
  const progress = phase.step === "uploading" ? phase.progress : null
  return (
    <section>
      <PageTitle>New campaign</PageTitle>
      <form className="card wide" onSubmit={submit} noValidate>
        <Field label="Name" required errors={fieldErrors.name}>
          {(props) => <input {...props} value={name} maxLength={255} autoComplete="off" onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Agent" required errors={fieldErrors.workflow_id}>
          {(props) => (
            <select {...props} value={agent} onChange={(e) => setAgent(e.target.value)}>
              <option value="">Choose an agent</option>
              {(agents.data ?? []).map((a) => <option key={a.id} value={String(a.id)}>{a.name}</option>)}
            </select>
          )}
        </Field>
        <Field label="Telephony configuration" errors={fieldErrors.telephony_configuration_id}>
          {(props) => (
            <select {...props} value={config} onChange={(e) => setConfig(e.target.value)}>
              <option value="">The organization's default for outbound calls</option>
              {(configs.data?.configurations ?? []).map((c) => (
                <option key={c.id} value={String(c.id)}>{c.name} ({c.provider}){c.is_default_outbound ? " — default" : ""}</option>
              ))}
            </select>
          )}
        </Field>

        <div
          className={`dropzone${dragging ? " is-dragging" : ""}`}
          onDragOver={(e) => { e.preventDefault(); setDragging(true) }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
          data-testid="csv-dropzone"
        >
          <label htmlFor={inputId}>Contacts file (CSV)</label>
          <p className="hint" id={`${inputId}-hint`}>
            Drop the file here or choose it. It needs a <code>phone_number</code> column; every other column is available to the agent as a
            template variable.
          </p>
          <input
            id={inputId}
            type="file"
            accept=".csv,text/csv"
            aria-describedby={`${inputId}-hint`}
            {...(fieldErrors.file !== undefined ? { "aria-invalid": true } : {})}
            onChange={(e) => pick(e.target.files?.[0])}
          />
          {file !== null && <p>Chosen: <strong>{file.name}</strong> ({sizeText(file.size)})</p>}
          {fieldErrors.file !== undefined && <p className="field-error">{fieldErrors.file.join(" ")}</p>}
        </div>
        {phase.step === "uploading" && (
          <div className="upload-progress">
            <label htmlFor={`${inputId}-progress`}>Uploading {file?.name}</label>
            <progress id={`${inputId}-progress`} max={progress?.total ?? 1} value={progress?.loaded ?? 0}>
              {progress === null ? "starting" : `${Math.round((progress.loaded / Math.max(1, progress.total)) * 100)}%`}
            </progress>
          </div>
        )}
        <p role="status" className="hint">
          {phase.step === "uploading" ? (progress === null ? "Starting the upload…" : `Uploaded ${sizeText(progress.loaded)} of ${sizeText(progress.total)}`) : phase.step === "creating" ? "Reading the contacts…" : ""}
        </p>

        <SettingsFields form={settings} onChange={setSettings} errors={fieldErrors} />

        {failure?.rows !== undefined && (
          <div className="error" role="alert">
            <p>The contacts file was refused:</p>
            <ul>{failure.rows.map((row) => <li key={row}>{row}</li>)}</ul>
            <p>Fix the file and drop it again.</p>
          </div>
        )}
        {failure?.message !== undefined && <p className="error" role="alert">{failure.message}</p>}
        {failure?.error !== undefined && <ApiError error={failure.error} title="Not created" />}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>{busy ? "Working…" : "Upload and create campaign"}</button>
          <Link className="button" to="/campaigns">Cancel</Link>
        </div>
      </form>
    </section>
  )
}
