/**
 * TwiML answer documents (pure): what Twilio does with a call once it is answered, or with an inbound
 * call it asks about.
 *
 * - `ConnectMediaStream`: `<Connect><Stream url>` opens a bidirectional media stream; Twilio drops query
 *   strings from stream URLs, so data travels as `<Parameter>`s (echoed in the stream's `start`).
 *   `<Connect>` holds the call until the WebSocket closes; the call then ends (`<Hangup/>`).
 * - `KeepOpen`: silence (`<Pause>`) for Twilio's longest call, four hours.
 * - `Reject`: a busy line is `<Reject reason="busy">` (only meaningful before an inbound call is
 *   answered; an answered call just hangs up); otherwise the reason is said, then `<Hangup/>`.
 */
import type { CallInstruction } from "@agentline/telephony-kit/TelephonyProvider"

export const escapeXml = (value: string): string =>
  value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;")

const document = (verbs: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs}</Response>`

/** Twilio's longest call: four hours. */
const LONGEST_CALL_SECONDS = 4 * 60 * 60

export const answer = (instruction: CallInstruction): string => {
  switch (instruction._tag) {
    case "ConnectMediaStream": {
      const parameters = Object.entries(instruction.parameters)
        .map(([name, value]) => `<Parameter name="${escapeXml(name)}" value="${escapeXml(value)}"/>`)
        .join("")
      return document(`<Connect><Stream url="${escapeXml(instruction.url)}">${parameters}</Stream></Connect><Hangup/>`)
    }
    case "KeepOpen":
      return document(`<Pause length="${LONGEST_CALL_SECONDS}"/>`)
    case "Reject":
      if (instruction.busy === true) return document(`<Reject reason="busy"/>`)
      return document(`${instruction.reason !== "" ? `<Say>${escapeXml(instruction.reason)}</Say>` : ""}<Hangup/>`)
  }
}
