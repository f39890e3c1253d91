/**
 * Plivo XML answers (pure). `ConnectMediaStream` becomes a bidirectional `<Stream>` that keeps the
 * call up while the socket is open (`keepCallAlive`: nothing after it runs until the stream ends),
 * µ-law 8 kHz; `KeepOpen` a long `<Wait>`; `Reject` the busy signal (`<Hangup reason="busy">`), a
 * reason said then `<Hangup/>`, or without a reason a rejection before answering.
 *
 * Stream parameters travel in `extraHeaders`, which Plivo limits to letters and digits (512 bytes):
 * they are sent as one `agentline=<hex of their JSON>` pair and read back from the start message.
 */
import type { CallInstruction, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"

export const CONTENT_TYPE = "audio/x-mulaw;rate=8000"
const PARAMETERS_KEY = "agentline"
/** Plivo ends calls after four hours anyway. */
const KEEP_OPEN_SECONDS = 14_400

export const escapeXml = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;")

export const encodeParameters = (parameters: Readonly<Record<string, string>>): string =>
  Object.keys(parameters).length === 0 ? "" : `${PARAMETERS_KEY}=${Buffer.from(JSON.stringify(parameters), "utf8").toString("hex")}`

/** The parameters of an `extra_headers` string (`a=1;b=2` or `a=1,b=2`); ours are decoded from hex. */
export const decodeParameters = (extraHeaders: string | undefined): Record<string, string> => {
  const result: Record<string, string> = {}
  for (const pair of (extraHeaders ?? "").split(/[;,]/)) {
    const at = pair.indexOf("=")
    if (at <= 0) continue
    const key = pair.slice(0, at).trim()
    const value = pair.slice(at + 1).trim()
    if (key === PARAMETERS_KEY && /^(?:[0-9a-f]{2})+$/i.test(value)) {
      try {
        const decoded: unknown = JSON.parse(Buffer.from(value, "hex").toString("utf8"))
        if (decoded !== null && typeof decoded === "object" && !Array.isArray(decoded)) {
          for (const [k, v] of Object.entries(decoded)) if (typeof v === "string") result[k] = v
          continue
        }
      } catch {
        // not ours after all: keep it as a plain header below
      }
    }
    result[key] = value
  }
  return result
}

const document = (body: string): WebhookResponse => ({
  status: 200,
  contentType: "application/xml",
  body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response>${body}</Response>`
})

export const answer = (instruction: CallInstruction): WebhookResponse => {
  switch (instruction._tag) {
    case "ConnectMediaStream": {
      const extra = encodeParameters(instruction.parameters)
      return document(
        `<Stream bidirectional="true" keepCallAlive="true" contentType="${CONTENT_TYPE}"` +
          (extra === "" ? "" : ` extraHeaders="${extra}"`) +
          `>${escapeXml(instruction.url)}</Stream>`
      )
    }
    case "KeepOpen":
      return document(`<Wait length="${KEEP_OPEN_SECONDS}"/>`)
    case "Reject":
      // Busy: the busy signal, before answering. A reason is said (the call is answered for it); none:
      // rejected before answering.
      if (instruction.busy === true) return document(`<Hangup reason="busy"/>`)
      return instruction.reason.trim() === ""
        ? document(`<Hangup reason="rejected"/>`)
        : document(`<Speak>${escapeXml(instruction.reason)}</Speak><Hangup/>`)
  }
}
