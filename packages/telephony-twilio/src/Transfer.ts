/**
 * Twilio transfers (cold): the live call is updated with new TwiML (`POST Calls/{sid}.json`,
 * `Twiml=`), a `<Dial>` of the target — `<Number>` for E.164, `<Sip>` for a SIP URI — with the
 * transfer's result URL twice: as the dialed leg's `statusCallback` (its `answered` and `completed`
 * events: the result as soon as the person picks up or the attempt is over) and as the `<Dial>`'s
 * `action` (Twilio's `DialCallStatus` when the dial ends). The first result counts; the action's answer
 * (`<Hangup/>`) ends the caller's call once the dial is over. Redirecting a call that is over is
 * refused by Twilio (21220), not retryable.
 *
 * Warm transfers, through a conference named after the caller's call (`agentline-<CallSid>`):
 *
 * 1. the caller's call is updated (`Twiml=`) with `<Dial><Conference startConferenceOnEnter="false"
 *    endConferenceOnExit="true" beep="false">`: the caller waits in the conference, hearing Twilio's
 *    hold music (its default `waitUrl`), and the agent's media stream ends;
 * 2. the target is called (`POST Calls.json`, `Timeout` = the ring time) with inline TwiML: `<Say>` of the
 *    briefing, then `<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true">` of the
 *    same conference: the person hears the briefing, then joins the caller and the conference starts.
 *    Its status callbacks (`answered`, `completed`) go to the result URL with `warm_caller=<CallSid>`
 *    added (the signature covers it): `in-progress` is the result `answered`; `busy`, `no-answer`,
 *    `failed`, `canceled` the others.
 * 3. nobody answered: the caller's call is updated with `<Say>` of `UNANSWERED_SENTENCE` and `<Hangup/>`
 *    (the caller is not left with hold music); the target's leg ended (`completed`, say the person hung
 *    up during the briefing): the caller's call is ended too (already over when the conference ended).
 *
 * Creating the target's call failing (after the caller was moved) puts the caller on the same sentence
 * and fails the transfer. A warm transfer needs a caller id (`From` of the target's call).
 */
import type { WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyError, type WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { isSipTarget, type TransferCall, type TransferOutcome, type TransferResult } from "@agentline/telephony-kit/Transfer"
import { Clock, Effect, Either } from "effect"
import { escapeXml } from "./Answer.js"
import type { TwilioConfig } from "./Config.js"
import * as Rest from "./Rest.js"
import * as Signature from "./Signature.js"
import type { FormParams } from "./Signature.js"

/** What the caller hears when nobody took a warm transfer, before the call ends. */
export const UNANSWERED_SENTENCE = "Sorry, nobody could take your call right now. Please try again later. Goodbye."

/** The query parameter of a warm transfer's result URL naming the caller's call. */
export const WARM_CALLER = "warm_caller"

/** A warm transfer's conference: named after the caller's call (no personal data in the name, as Twilio asks). */
export const conferenceName = (callSid: string) => `agentline-${callSid}`

const XML = `<?xml version="1.0" encoding="UTF-8"?>`

/** The TwiML the caller's call is updated with for a warm transfer: it waits in the conference on hold music. */
export const holdDocument = (callSid: string): string =>
  `${XML}<Response><Dial><Conference startConferenceOnEnter="false" endConferenceOnExit="true" beep="false">${
    escapeXml(conferenceName(callSid))
  }</Conference></Dial><Hangup/></Response>`

/** The TwiML of the target's call: the briefing, then the caller's conference, which starts as it joins. */
export const briefingDocument = (callSid: string, briefing: string): string =>
  `${XML}<Response>${
    briefing.trim() === "" ? "" : `<Say>${escapeXml(briefing)}</Say>`
  }<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${
    escapeXml(conferenceName(callSid))
  }</Conference></Dial></Response>`

/** What the caller's call is updated with when nobody took a warm transfer. */
export const unansweredDocument = (): string => `${XML}<Response><Say>${escapeXml(UNANSWERED_SENTENCE)}</Say><Hangup/></Response>`

/** The result URL of a warm transfer: the server's, with the caller's call named. */
export const warmResultUrl = (resultUrl: string, callSid: string): string => {
  const url = new URL(resultUrl)
  url.searchParams.set(WARM_CALLER, callSid)
  return url.toString()
}

/** The parameters of the target's call (`Calls.json`) for a warm transfer. */
export const targetCall = (
  input: Pick<TransferCall<unknown>, "providerCallId" | "target" | "timeoutSeconds" | "resultUrl">,
  from: string,
  briefing: string
): FormParams => [
  ["To", input.target],
  ["From", from],
  ["Twiml", briefingDocument(input.providerCallId, briefing)],
  ["Timeout", String(Math.min(600, Math.max(5, Math.round(input.timeoutSeconds))))],
  ["StatusCallback", warmResultUrl(input.resultUrl, input.providerCallId)],
  ["StatusCallbackMethod", "POST"],
  ["StatusCallbackEvent", "answered"],
  ["StatusCallbackEvent", "completed"]
]

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
  return {
    outcome,
    at: now,
    cause: `${dial !== undefined ? "DialCallStatus" : "CallStatus"}=${status}${sip !== undefined ? `, SIP ${sip}` : ""}`
  }
}

/** The answer to a result request: once the dial is over, the caller's call ends. */
export const resultAnswer = (): WebhookResponse => ({
  status: 200,
  contentType: "text/xml",
  body: `<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`
})

const refused = (message: string) => new TelephonyError({ provider: "twilio", message, retryable: false })

/** Updates a live call with a document; `what` for the error. */
const update = (rest: Rest.Rest, config: TwilioConfig, callSid: string, twiml: string, what: string) =>
  Effect.flatMap(
    rest.send({
      credentials: config,
      method: "POST",
      path: `/Calls/${encodeURIComponent(callSid)}.json`,
      params: [["Twiml", twiml]],
      schema: Rest.CallResource,
      what
    }),
    (updated) => Either.isLeft(updated) ? Rest.failure(updated.left, what) : Effect.void
  )

const warm = (rest: Rest.Rest, input: TransferCall<TwilioConfig>) =>
  Effect.gen(function*() {
    if (input.from === undefined) {
      return yield* refused("a warm transfer on Twilio needs a caller id for the target's call (the configuration has no number)")
    }
    yield* update(
      rest,
      input.config,
      input.providerCallId,
      holdDocument(input.providerCallId),
      "put the caller on hold for a warm transfer"
    )
    const what = `call ${input.target} for a warm transfer`
    const created = yield* rest.send({
      credentials: input.config,
      method: "POST",
      path: "/Calls.json",
      params: targetCall(input, input.from, input.briefing ?? ""),
      schema: Rest.CallResource,
      what
    })
    if (Either.isRight(created)) return
    // The caller waits in a conference nobody will join: tell them, and end the call.
    yield* update(rest, input.config, input.providerCallId, unansweredDocument(), "tell the caller the transfer failed").pipe(Effect.ignore)
    return yield* Rest.failure(created.left, what)
  })

export const transfer = (rest: Rest.Rest) => (input: TransferCall<TwilioConfig>) =>
  input.mode === "warm" ? warm(rest, input) : cold(rest, input)

const cold = (rest: Rest.Rest, input: TransferCall<TwilioConfig>) =>
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

/** The caller's call named by a warm transfer's result URL, if it is one. */
export const warmCaller = (url: string): string | undefined => {
  try {
    const value = new URL(url).searchParams.get(WARM_CALLER)
    return value === null || value === "" ? undefined : value
  } catch {
    return undefined
  }
}

/**
 * `webhooks.parseTransferResult`: the result of a `<Dial>`'s action or a dialed leg's status callback;
 * for a warm transfer (its result URL names the caller's call), the caller is also taken out of the
 * conference once the target's leg is over: told `UNANSWERED_SENTENCE` when nobody answered, hung up
 * when the person's leg ended (Twilio refusing, the call being over already, changes nothing).
 */
export const parseTransferResult = (
  rest: Rest.Rest,
  hangUp: (input: { readonly config: TwilioConfig; readonly providerCallId: string }) => Effect.Effect<void, TelephonyError>
) =>
({ config, request }: { readonly config: TwilioConfig; readonly request: WebhookRequest }) =>
  Effect.gen(function*() {
    const params = Signature.formParams(request.rawBody)
    const result = parseResult(params, yield* Clock.currentTimeMillis)
    if (typeof result === "string") return yield* refused(result)
    const caller = warmCaller(request.url)
    const status = params.find(([name]) => name === "CallStatus")?.[1]
    if (caller !== undefined && result !== undefined) {
      const after = result.outcome !== "answered"
        ? update(rest, config, caller, unansweredDocument(), "tell the caller nobody took the transfer")
        : status === "completed"
        ? hangUp({ config, providerCallId: caller })
        : Effect.void
      yield* after.pipe(Effect.catchAll((e) => Effect.logInfo(`twilio: warm transfer of ${caller}: ${e.message}`)))
    }
    return result
  })
