/**
 * NCCOs (Nexmo Call Control Objects), Vonage's answer documents: a JSON array of actions.
 *
 * - `ConnectMediaStream`: `connect` to a `websocket` endpoint streaming 16-bit linear PCM at 16 kHz
 *   (`audio/l16;rate=16000`, Vonage's wide-band rate); the instruction's parameters go in the
 *   endpoint's `headers`, which Vonage sends back in the first text frame (`websocket:connected`).
 * - `KeepOpen`: no voice runtime serves the call; a `conversation` of its own keeps the caller on an open,
 *   silent line until either side hangs up.
 * - `Reject`: Vonage's NCCO has no "reject" nor busy signal: the reason is said (`talk`) and the NCCO
 *   runs out, which hangs up; an empty reason is an empty NCCO (hang up at once).
 */
import type { CallInstruction } from "@agentline/telephony-kit/TelephonyProvider"
import * as Crypto from "node:crypto"

export const CONTENT_TYPE = "audio/l16;rate=16000"

export type Action = Record<string, unknown>

export const ncco = (instruction: CallInstruction, options: { readonly conversationName?: string } = {}): ReadonlyArray<Action> => {
  switch (instruction._tag) {
    case "ConnectMediaStream":
      return [{
        action: "connect",
        endpoint: [{ type: "websocket", uri: instruction.url, "content-type": CONTENT_TYPE, headers: { ...instruction.parameters } }]
      }]
    case "KeepOpen":
      // A conversation of its own (a shared name would put callers on the same line).
      return [{ action: "conversation", name: options.conversationName ?? `agentline-${Crypto.randomUUID()}` }]
    case "Reject":
      return instruction.reason === "" ? [] : [{ action: "talk", text: instruction.reason }]
  }
}

export const answer = (instruction: CallInstruction) => ({
  status: 200,
  contentType: "application/json",
  body: JSON.stringify(ncco(instruction))
})
