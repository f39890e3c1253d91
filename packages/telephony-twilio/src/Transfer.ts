/**
 * Twilio transfers (cold): the live call is updated with new TwiML (`POST Calls/{sid}.json`,
 * `Twiml=`), a `<Dial>` of the target — `<Number>` for E.164, `<Sip>` for a SIP URI — with the
 * transfer's result URL twice: as the dialed leg's `statusCallback` (its `answered` and `completed`
 * events: the result as soon as the person picks up or the attempt is over) and as the `<Dial>`'s
 * `action` (Twilio's `DialCallStatus` when the dial ends). The first result counts; the action's answer
 * (`<Hangup/>`) ends the caller's call once the dial is over. Redirecting a call that is over is
 * refused by Twilio (21220), not retryable. Warm transfers (a conference the agent leaves) are not done.
 */
import { isSipTarget, type TransferCall, type TransferOutcome, type TransferResult } from "@agentline/telephony-kit/Transfer"
import type { WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either } from "effect"
import { escapeXml } from "./Answer.js"
import type { TwilioConfig } from "./Config.js"
import * as Rest from "./Rest.js"
import type { FormParams } from "./Signature.js"

/** The TwiML the call is updated with. */
export const dialDocument = (input: Pick<TransferCall<unknown>, "target" | "from" | "timeoutSeconds" | "resultUrl">): string => {
  const url = escapeXml(input.resultUrl)
  const progress = `statusCallback="${url}" statusCallbackMethod="POST" statusCallbackEvent="answered completed"`
  const leg = isSipTarget(input.target)
    ? `<Sip ${progress}>${escapeXml(input.target)}</Sip>`
    : `<Number ${progress}>${escapeXml(input.target)}</Number>`
  const callerId = input.from !== undefined && !isSipTarget(input.target) ? ` callerId="${escapeXml(input.from)}"` : ""
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Dial action="${url}" method="POST" timeout="${input.timeoutSeconds}"${callerId}>${leg}</Dial><Hangup/></Response>`
}

/** A dial's status (TwiML's vocabulary, which Cloudonix's CXML shares) as a result; undefined for others. */
export const dialOutcome = (status: string): TransferOutcome | undefined => {
  switch (status) {
    case "answered":
    case "completed":
    case "in-progress":
      return "answered"
    case "busy":
      return "busy"
    case "no-answer":
      return "no_answer"
    case "failed":
    case "canceled":
      return "failed"
    default:
      return undefined
  }
}

/**
 * A result request's parameters as the transfer's result: the `<Dial action>` (`DialCallStatus`) or the
 * dialed leg's status callback (`CallStatus` of the child call); undefined for a progress report
 * (`ringing`); a string when it is neither.
 */
export const parseResult = (params: FormParams, now: number): TransferResult | undefined | string => {
  const get = (name: string) => params.find(([n]) => n === name)?.[1]
  const dial = get("DialCallStatus")
  const status = dial ?? get("CallStatus")
  if (status === undefined || status === "") return "a Twilio transfer result without DialCallStatus or CallStatus"
  if (status === "ringing" || status === "initiated" || status === "queued") return undefined
  const outcome = dialOutcome(status)
  if (outcome === undefined) return `unknown Twilio dial status ${JSON.stringify(status)}`
  const sip = get("SipResponseCode") ?? get("DialSipResponseCode")
  return { outcome, at: now, cause: `${dial !== undefined ? "DialCallStatus" : "CallStatus"}=${status}${sip !== undefined ? `, SIP ${sip}` : ""}` }
}

/** The answer to a result request: once the dial is over, the caller's call ends. */
export const resultAnswer = (): WebhookResponse => ({
  status: 200,
  contentType: "text/xml",
  body: `<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`
})

export const transfer = (rest: Rest.Rest) => (input: TransferCall<TwilioConfig>) =>
  Effect.gen(function*() {
    const updated = yield* rest.send({
      credentials: input.config,
      method: "POST",
      path: `/Calls/${encodeURIComponent(input.providerCallId)}.json`,
      params: [["Twiml", dialDocument(input)]],
      schema: Rest.CallResource,
      what: "transfer the call"
    })
    if (Either.isLeft(updated)) return yield* Rest.failure(updated.left, "transfer the call")
  })
