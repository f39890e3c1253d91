/**
 * Cloudonix transfers (cold). A running session is handed a new voice application, CXML given inline
 * (`POST /calls/{domain}/sessions/{token}/application`, JSON `{"cxml": ...}`, as integrations that
 * transfer Cloudonix calls send it): what ran before — our `<Connect><Stream>`, the agent — stops, and
 * the new document `<Dial>`s the target (`<Number>` for E.164, `<Sip>` for a SIP URI) with the
 * transfer's result URL as the dial's `action`, then hangs up. Cloudonix requests the `action` when the
 * dial is over, as a voice application request (JSON) whose `CallStatus` is the dial's status (the
 * "Voice Application Request" page); the answer (`<Hangup/>`) ends the caller's call. A session that is
 * over is refused here (looked up first), not retryable. Warm transfers are not done.
 */
import type { TelephonyError, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { isSipTarget, type TransferCall, type TransferOutcome, type TransferResult } from "@agentline/telephony-kit/Transfer"
import { TelephonyError as Refusal } from "@agentline/telephony-kit/TelephonyProvider"
import { Twilio } from "@agentline/telephony-twilio"
import { Effect, Either, Schema } from "effect"
import * as Callbacks from "./Callbacks.js"
import { cloudonixDomain, type CloudonixConfig } from "./Config.js"
import { type Params, paramsOf, read, text } from "./Requests.js"
import * as Rest from "./Rest.js"

const escape = Twilio.Answer.escapeXml

/** The CXML the session is handed: a `<Dial>` of the target, its result to `resultUrl`, then hang up. */
export const dialDocument = (input: Pick<TransferCall<unknown>, "target" | "from" | "timeoutSeconds" | "resultUrl">): string => {
  const noun = isSipTarget(input.target) ? `<Sip>${escape(input.target)}</Sip>` : `<Number>${escape(input.target)}</Number>`
  const callerId = input.from !== undefined && !isSipTarget(input.target) ? ` callerId="${escape(input.from)}"` : ""
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Dial action="${escape(input.resultUrl)}" method="POST" timeout="${input.timeoutSeconds}"${callerId}>${noun}</Dial><Hangup/></Response>`
}

/**
 * A dial's status ("queued, ringing, in-progress, completed, busy, canceled, failed, no-answer or
 * unknown") as a result: TwiML's vocabulary, plus Cloudonix's `unknown`.
 */
const dialOutcome = (status: string): TransferOutcome | undefined =>
  status === "unknown" ? "failed" : Twilio.Transfer.dialOutcome(status)

/**
 * The dial's `action` request (its parameters) as the transfer's result: `CallStatus`, as Cloudonix
 * documents it for a dial's result (Twilio's `DialCallStatus` is read first, should Cloudonix send it);
 * undefined for progress (`queued`, `ringing`); a string when it is unreadable.
 */
export const parseResult = (params: Params, now: number): TransferResult | undefined | string => {
  const dial = text(params.DialCallStatus)
  const status = (dial ?? text(params.CallStatus))?.toLowerCase()
  if (status === undefined) return "a Cloudonix dial result without CallStatus"
  if (status === "queued" || status === "ringing" || status === "initiated") return undefined
  const outcome = dialOutcome(status)
  if (outcome === undefined) return `unknown Cloudonix dial status ${JSON.stringify(status)}`
  return { outcome, at: now, cause: `${dial !== undefined ? "DialCallStatus" : "CallStatus"}=${status}` }
}

/** A result request's body (JSON, a form, or a GET's query) as the transfer's result. */
export const parseResultRequest = (body: string, url: string, now: number): TransferResult | undefined | string => {
  const params = paramsOf(read(body, url))
  return params === undefined ? "a Cloudonix dial result that is neither a JSON object nor a form" : parseResult(params, now)
}

/** The answer to the dial's `action`: the dial is over, so is the caller's call. */
export const resultAnswer = (): WebhookResponse => ({
  status: 200,
  contentType: "application/xml",
  body: `<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`
})

const refused = (message: string) => new Refusal({ provider: "cloudonix", message, retryable: false })

export const transfer = (rest: Rest.Rest) => (input: TransferCall<CloudonixConfig>): Effect.Effect<void, TelephonyError> =>
  Effect.gen(function*() {
    const { config, providerCallId } = input
    const path = `/calls/${encodeURIComponent(cloudonixDomain(config.domain_id) ?? "")}/sessions/${encodeURIComponent(providerCallId)}`
    const session = yield* rest.send({ apiKey: config.bearer_token, method: "GET", path, schema: Rest.Session, what: "look the call up" })
    if (Either.isLeft(session)) return yield* Rest.failure(session.left, "transfer the call")
    if (Callbacks.sessionStatus(session.right)._tag === "Ended") return yield* refused(`the call ${providerCallId} is over: it cannot be transferred`)
    const updated = yield* rest.send({
      apiKey: config.bearer_token,
      method: "POST",
      path: `${path}/application`,
      body: { cxml: dialDocument(input) },
      schema: Schema.Unknown,
      what: "transfer the call"
    })
    if (Either.isLeft(updated)) return yield* Rest.failure(updated.left, "transfer the call")
  })
