/**
 * Settings → Recordings: the organization's pre-recorded audio (`/workflow-recordings`), which agents
 * play instead of synthesized speech (a greeting or transition speech of type Recording names one by
 * its recording id). Upload a WAV file with its name and words, rename it or correct its words,
 * delete it.
 */
import { type Recording } from "@agentline/api/recordings/Recordings"
import { Effect, Either } from "effect"
import { type FormEvent, useState } from "react"
import { client } from "../../api/client.js"
import { runApi, useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { ConfirmButton } from "../../components/Confirm.js"
import { formatTime } from "../../components/format.js"
import { Field, Loading } from "../agents/ui.js"
import { UploadFailed, uploadFile } from "../campaigns/upload.js"

/** A recording's duration and format from what the server read of the file, for the list. */
export const describeAudio = (metadata: Readonly<Record<string, unknown>>): string => {
  const parts = [
    typeof metadata.duration === "number" ? `${Math.round(metadata.duration * 10) / 10} s` : null,
    typeof metadata.sample_rate === "number" ? `${metadata.sample_rate} Hz` : null,
    typeof metadata.channels === "number" ? (metadata.channels === 1 ? "mono" : `${metadata.channels} channels`) : null
  ].filter((p): p is string => p !== null)
  return parts.length === 0 ? "—" : parts.join(", ")
}

export const RecordingsPage = () => {
  const recordings = useApi(() => client.recordings.list({ urlParams: {} }), [])
  const [file, setFile] = useState<File | null>(null)
  const [name, setName] = useState("")
  const [words, setWords] = useState("")
  const [notice, setNotice] = useState("")
  const [uploadError, setUploadError] = useState<unknown>(undefined)
  const [uploading, setUploading] = useState(false)
  const remove = useAction((recordingId: string) => client.recordings.delete({ path: { recording_id: recordingId } }))

  const upload = async (event: FormEvent) => {
    event.preventDefault()
    if (file === null) return
    setUploadError(undefined)
    setUploading(true)
    try {
      const type = file.type !== "" && file.type.startsWith("audio/") ? file.type : "audio/wav"
      const urls = await runApi(client.recordings.uploadUrls({ payload: { files: [{ filename: file.name, mime_type: type, file_size: file.size }] } }))
      if (Either.isLeft(urls)) return setUploadError(urls.left)
      const item = urls.right.items[0]!
      try {
        await uploadFile(item.upload_url, file, type, () => undefined)
      } catch (error) {
        return setUploadError(error instanceof UploadFailed ? new Error(`The file was not uploaded: ${error.detail}`) : error)
      }
      const created = await runApi(Effect.flatMap(
        client.recordings.create({
          payload: {
            recordings: [{
              recording_id: item.recording_id,
              storage_key: item.storage_key,
              transcript: words,
              tts_provider: null,
              tts_model: null,
              tts_voice_id: null,
              metadata: null,
              workflow_id: null
            }]
          }
        }),
        // The server names new recordings; the name given here is set right after.
        (answer) =>
          name.trim() === "" || answer.recordings[0] === undefined
            ? Effect.succeed(answer.recordings[0])
            : client.recordings.update({ path: { id: answer.recordings[0].id }, payload: { recording_id: name.trim() } })
      ))
      if (Either.isLeft(created)) return setUploadError(created.left)
      setNotice(`Uploaded ${file.name} as “${created.right?.recording_id ?? item.recording_id}”.`)
      setFile(null)
      setName("")
      setWords("")
      recordings.reload()
    } finally {
      setUploading(false)
    }
  }

  return (
    <>
      <h2>Recordings</h2>
      <p className="hint">
        Audio an agent plays instead of synthesized speech: set a greeting's or a transition's type to Recording and name the
        recording id. WAV files of at most 5 MB.
      </p>
      <p role="status">{notice}</p>
      <ApiError error={remove.error} title="Not deleted" />
      {recordings.data === undefined ? (recordings.error !== undefined ? <ApiError error={recordings.error} /> : <Loading what="the recordings" />) : (
        recordings.data.recordings.length === 0 ? <p className="hint">No recordings yet.</p> : (
          <ul className="item-cards">
            {recordings.data.recordings.map((recording) => (
              <RecordingCard
                key={recording.id}
                recording={recording}
                onSaved={(message) => { setNotice(message); recordings.reload() }}
                onDelete={async () => {
                  if (Either.isRight(await remove.run(recording.recording_id))) {
                    setNotice(`Deleted the recording “${recording.recording_id}”.`)
                    recordings.reload()
                  }
                }}
              />
            ))}
          </ul>
        )
      )}
      <form onSubmit={upload} className="card" aria-labelledby="new-recording-heading">
        <h3 id="new-recording-heading">Upload a recording</h3>
        <Field label="Audio file (WAV)" required>
          {(props) => <input {...props} type="file" accept=".wav,audio/wav,audio/x-wav" onChange={(e) => setFile(e.target.files?.[0] ?? null)} />}
        </Field>
        <Field label="Recording id" hint="Letters, digits, - and _; agents name the recording by it. Empty: the server picks one.">
          {(props) => <input {...props} value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="What it says" hint="The words of the recording: a call's transcript shows them where it was played.">
          {(props) => <textarea {...props} rows={3} value={words} onChange={(e) => setWords(e.target.value)} />}
        </Field>
        <ApiError error={uploadError} title="Not uploaded" />
        <button type="submit" className="primary" disabled={file === null || uploading}>{uploading ? "Uploading…" : "Upload recording"}</button>
      </form>
    </>
  )
}

const RecordingCard = ({ onDelete, onSaved, recording }: {
  readonly recording: Recording
  readonly onSaved: (message: string) => void
  readonly onDelete: () => void
}) => {
  const [editing, setEditing] = useState<{ readonly name: string; readonly words: string } | null>(null)
  const update = useAction((name: string, words: string) =>
    client.recordings.update({ path: { id: recording.id }, payload: { recording_id: name.trim(), transcript: words } })
  )
  const save = async (event: FormEvent) => {
    event.preventDefault()
    if (editing === null) return
    const result = await update.run(editing.name, editing.words)
    if (Either.isRight(result)) {
      setEditing(null)
      onSaved(`Saved the recording “${result.right.recording_id}”.`)
    }
  }
  return (
    <li className="card" aria-label={`Recording ${recording.recording_id}`}>
      <p><strong>{recording.recording_id}</strong> · {describeAudio(recording.metadata)} · added {formatTime(recording.created_at)}</p>
      <p>{recording.transcript === "" ? <span className="hint">No words given.</span> : `“${recording.transcript}”`}</p>
      {editing === null ? (
        <div className="actions">
          <button type="button" onClick={() => setEditing({ name: recording.recording_id, words: recording.transcript })}>Edit {recording.recording_id}</button>
          <ConfirmButton label={`Delete ${recording.recording_id}`} confirm={`Yes, delete “${recording.recording_id}”`} onConfirm={onDelete} />
        </div>
      ) : (
        <form onSubmit={save} aria-label={`Edit ${recording.recording_id}`}>
          <Field label="Recording id" required>
            {(props) => <input {...props} value={editing.name} onChange={(e) => setEditing({ ...editing, name: e.target.value })} />}
          </Field>
          <Field label="What it says">
            {(props) => <textarea {...props} rows={3} value={editing.words} onChange={(e) => setEditing({ ...editing, words: e.target.value })} />}
          </Field>
          <ApiError error={update.error} title="Not saved" />
          <div className="actions">
            <button type="submit" className="primary" disabled={update.pending}>Save recording</button>
            <button type="button" onClick={() => setEditing(null)}>Cancel</button>
          </div>
        </form>
      )}
    </li>
  )
}
