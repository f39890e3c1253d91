/**
 * "Talk to the agent": a web call (docs/web-calls.md) with the agent's latest saved version, its draft
 * when it has one, from this browser: no phone number. `POST /workflow/{id}/web-call` gives the call's
 * run and a single-use token; the page opens the call's WebSocket with it, sends the microphone (an
 * AudioWorklet, `/web-call-worklet.js`, resamples it to the wire's 16 kHz PCM) and plays the agent's
 * audio through the same worklet's queue, which a `clear` (the user talked over the agent) empties at
 * once. The transcript and each answer's latency come as the call goes; afterwards, a link to the run.
 */
import type { Workflow } from "@agentline/api/workflows/Workflow"
import { WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { useEffect, useRef, useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useAction } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"

interface Line {
  readonly role: "user" | "assistant"
  readonly text: string
  readonly interrupted: boolean
  /** For the agent's answers: the caller's end of speech to its first audio. */
  latencyMs?: number
}

type Phase = "idle" | "connecting" | "live" | "ended"

interface Stats {
  readonly played: number
  readonly audible: number
  readonly clears: number
}

/** One call's resources, released together. */
interface Call {
  readonly socket: WebSocket
  readonly context: AudioContext
  readonly microphone: MediaStream
}

const start = (workflowId: number) => client.webCalls.create({ path: { workflow_id: WorkflowId.make(workflowId) }, payload: { name: "Dashboard web call" } })

const socketUrl = (path: string) => `${window.location.protocol === "https:" ? "wss" : "ws"}://${window.location.host}${path}`

/** 16-bit PCM as the worklet's floats. */
const floats = (buffer: ArrayBuffer) => {
  const pcm = new Int16Array(buffer)
  const out = new Float32Array(pcm.length)
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i]! / 0x8000
  return out
}

export const TalkPanel = ({ workflow }: { readonly workflow: Workflow }) => {
  const creating = useAction(start)
  const [phase, setPhase] = useState<Phase>("idle")
  const [lines, setLines] = useState<ReadonlyArray<Line>>([])
  const [runId, setRunId] = useState<number | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [ending, setEnding] = useState<string | null>(null)
  const [stats, setStats] = useState<Stats>({ played: 0, audible: 0, clears: 0 })
  const [rate, setRate] = useState(48_000)
  const call = useRef<Call | null>(null)

  const release = (closeAudio: boolean) => {
    const current = call.current
    if (current === null) return
    for (const track of current.microphone.getTracks()) track.stop()
    if (current.socket.readyState <= WebSocket.OPEN) current.socket.close()
    if (closeAudio) {
      void current.context.close()
      call.current = null
    }
  }
  useEffect(() => () => release(true), [])

  const talk = async () => {
    release(true)
    setLines([])
    setProblem(null)
    setEnding(null)
    setStats({ played: 0, audible: 0, clears: 0 })
    setPhase("connecting")
    let microphone: MediaStream
    try {
      microphone = await navigator.mediaDevices.getUserMedia({ audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true } })
    } catch (error) {
      setProblem(`The microphone is not available: ${error instanceof Error ? error.message : String(error)}`)
      setPhase("idle")
      return
    }
    const created = await creating.run(workflow.id)
    if (Either.isLeft(created)) {
      for (const track of microphone.getTracks()) track.stop()
      setPhase("idle")
      return
    }
    const { sample_rate, websocket_path, workflow_run_id } = created.right
    setRunId(workflow_run_id)
    const context = new AudioContext()
    setRate(context.sampleRate)
    await context.audioWorklet.addModule("/web-call-worklet.js")
    const node = new AudioWorkletNode(context, "web-call", { numberOfInputs: 1, numberOfOutputs: 1, outputChannelCount: [1], processorOptions: { wireRate: sample_rate } })
    context.createMediaStreamSource(microphone).connect(node)
    node.connect(context.destination)
    await context.resume()
    const socket = new WebSocket(socketUrl(websocket_path))
    socket.binaryType = "arraybuffer"
    call.current = { socket, context, microphone }
    node.port.onmessage = (event: MessageEvent<{ type: string; pcm?: ArrayBuffer } & Stats>) => {
      if (event.data.type === "capture" && event.data.pcm !== undefined && socket.readyState === WebSocket.OPEN) socket.send(event.data.pcm)
      if (event.data.type === "stats") setStats({ played: event.data.played, audible: event.data.audible, clears: event.data.clears })
    }
    socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data !== "string") {
        const samples = floats(event.data)
        node.port.postMessage({ type: "audio", samples }, [samples.buffer])
        return
      }
      const message = JSON.parse(event.data) as { type: string; role?: "user" | "assistant"; text?: string; interrupted?: boolean; ms?: number; reason?: string; error?: string }
      switch (message.type) {
        case "ready":
          return setPhase("live")
        case "transcript":
          return setLines((all) => [...all, { role: message.role ?? "assistant", text: message.text ?? "", interrupted: message.interrupted === true }])
        case "latency":
          return setLines((all) => {
            let last = all.length - 1
            while (last >= 0 && all[last]!.role !== "assistant") last--
            return last === -1 ? all : all.map((line, index) => (index === last ? { ...line, latencyMs: message.ms ?? 0 } : line))
          })
        case "clear":
          return node.port.postMessage({ type: "clear" })
        case "end":
          setEnding(message.error !== undefined ? `${message.reason ?? "ended"}: ${message.error}` : message.reason ?? "ended")
          setPhase("ended")
          // The microphone stops; what is queued of the agent's last words still plays.
          return release(false)
      }
    }
    socket.onclose = () => {
      setPhase("ended")
      release(false)
    }
    socket.onerror = () => setProblem("The call's connection failed.")
  }

  const hangUp = () => {
    const current = call.current
    if (current !== null && current.socket.readyState === WebSocket.OPEN) current.socket.send(JSON.stringify({ type: "hangup" }))
    for (const track of current?.microphone.getTracks() ?? []) track.stop()
  }

  const live = phase === "connecting" || phase === "live"
  return (
    <aside className="talk-panel card" aria-label="Talk to the agent" data-played-samples={stats.played} data-audible-samples={stats.audible}
      data-clears={stats.clears} data-sample-rate={rate}>
      <h2>Talk to the agent</h2>
      <p className="hint">
        By voice from this browser with version {workflow.version_number ?? "?"}
        {workflow.version_status === "draft" ? ", the draft" : ", the published version"}. Headphones keep the agent from hearing itself.
      </p>
      <div className="actions">
        {live
          ? <button type="button" className="danger" onClick={hangUp}>Hang up</button>
          : <button type="button" className="primary" onClick={talk} disabled={creating.pending}>Talk</button>}
      </div>
      <p role="status">
        {phase === "connecting" ? "Connecting…" : phase === "live" ? "On the call: speak." : phase === "ended" ? `The call has ended (${ending ?? "closed"}).` : ""}
      </p>
      {lines.length > 0 && (
        <ol className="chat-log" aria-label="Call transcript">
          {lines.map((line, index) => (
            <li key={index} className="chat-turn">
              <p className={`chat-message ${line.role === "user" ? "user" : "agent"}`}>
                <span className="visually-hidden">{line.role === "user" ? "You: " : "Agent: "}</span>
                {line.text}
                {line.interrupted ? " …" : ""}
              </p>
              {line.latencyMs !== undefined && <p className="chat-meta">answered in {line.latencyMs} ms</p>}
            </li>
          ))}
        </ol>
      )}
      {stats.played > 0 && <p className="hint">Agent audio played: {(stats.audible / rate).toFixed(1)} s</p>}
      {problem !== null && <p className="error" role="alert">{problem}</p>}
      <ApiError error={creating.error} title="The call was not started" />
      {runId !== null && phase === "ended" && <div className="actions"><Link to={`/runs/${workflow.id}/${runId}`}>Open the run</Link></div>}
    </aside>
  )
}
