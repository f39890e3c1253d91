/**
 * Acme's call-flow documents (pure): a list of actions it runs in order, sent inline with a new call or
 * returned to an incoming-call webhook.
 */
import type { CallInstruction, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"

export const actions = (instruction: CallInstruction): ReadonlyArray<Record<string, unknown>> => {
  switch (instruction._tag) {
    case "ConnectMediaStream":
      return [{ type: "stream", url: instruction.url, params: instruction.parameters }]
    case "KeepOpen":
      // No voice runtime: hold the line until the callee hangs up (Acme caps a pause at four hours).
      return [{ type: "pause", seconds: 14_400 }]
    case "Reject":
      // Acme gives a caller its busy signal; otherwise the reason is said, then the call ends.
      return instruction.busy === true ? [{ type: "busy" }] : [{ type: "reject", reason: instruction.reason }]
  }
}

export const answer = (instruction: CallInstruction): WebhookResponse => ({
  status: 200,
  contentType: "application/json",
  body: JSON.stringify({ actions: actions(instruction) })
})
