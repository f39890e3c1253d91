/**
 * Transfers (cold) on a Plivo-compatible carrier (Plivo, Vobiz): the live call's A leg is handed a
 * new document —
 *
 *   POST Call/{call_uuid}/   {legs: "aleg", aleg_url: <result URL>?agentline_dial=<target>&timeout=..
 *                             &caller_id=..&token=.., aleg_method: "POST"}
 *
 * — which the carrier fetches from the transfer's result URL (signed as every callback): the answer is
 * a `<Dial>` of the target (`<Number>` for a phone number, `<User>` for a SIP URI) whose `action` and
 * `callbackUrl` are the result URL. The result comes from the dial: `callbackUrl`'s `DialAction=answer`
 * as soon as the person picks up, and the `action`'s `DialStatus` when the dial is over (completed,
 * busy, failed, cancel, timeout, no-answer); the action is answered with `<Hangup/>`: the caller's call
 * ends with the dial (the agent does not come back).
 *
 * The dial's parameters ride on the `aleg_url` query with a token (HMAC-SHA256 with the auth token over
 * the result URL and them): Vobiz signs its requests over the URL without its query, so the carrier's
 * signature alone would not vouch for the target. Moving a call that is over is refused (404), not
 * retryable. Warm transfers are not done.
 */
import { isSipTarget, type TransferCall, type TransferOutcome, type TransferResult } from "@agentline/telephony-kit/Transfer"
import type { TelephonyError, WebhookRequest, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect } from "effect"
import * as Crypto from "node:crypto"
import { escapeXml } from "./Answer.js"
import { param, paramsOf } from "./Callbacks.js"
import { wireAddress } from "./Calls.js"
import type { PlivoCompatibleConfig } from "./Dialect.js"
import type { Rest } from "./Rest.js"
import type { Params } from "./Signature.js"

/** The `aleg_url` query parameter naming the target: the request is the fetch of the transfer's document. */
export const DIAL_PARAMETER = "agentline_dial"

/** What the `<Dial>` needs, as carried on the `aleg_url`. */
export interface Dial {
  readonly target: string
  readonly timeoutSeconds: number
  /** Digits, as the carrier writes numbers; empty when none. */
  readonly callerId: string
}

const base = (url: string) => url.split("#")[0]!.split("?")[0]!

const token = (authToken: string, resultUrl: string, dial: Dial) =>
  Crypto.createHmac("sha256", authToken)
    .update([base(resultUrl), dial.target, String(dial.timeoutSeconds), dial.callerId].join("\n"), "utf8")
    .digest("base64url")

/** The `aleg_url` of a transfer: the result URL with the dial's parameters and their token. */
export const alegUrl = (authToken: string, input: Pick<TransferCall<unknown>, "target" | "from" | "timeoutSeconds" | "resultUrl">): string => {
  const dial: Dial = {
    target: input.target,
    timeoutSeconds: Math.max(5, Math.round(input.timeoutSeconds)),
    callerId: input.from === undefined ? "" : wireAddress(input.from)
  }
  const query = new URLSearchParams({
    [DIAL_PARAMETER]: dial.target,
    timeout: String(dial.timeoutSeconds),
    caller_id: dial.callerId,
    token: token(authToken, input.resultUrl, dial)
  })
  return `${input.resultUrl}${input.resultUrl.includes("?") ? "&" : "?"}${query.toString()}`
}

/**
 * The dial a request's URL carries, when it is the fetch of a transfer's document: `undefined` when it
 * is not one, `"forged"` when its token does not hold.
 */
export const dialOf = (authToken: string, url: string): Dial | "forged" | undefined => {
  const query = new URLSearchParams(url.split("#")[0]!.split("?")[1] ?? "")
  const target = query.get(DIAL_PARAMETER)
  if (target === null) return undefined
  const dial: Dial = { target, timeoutSeconds: Number(query.get("timeout")), callerId: query.get("caller_id") ?? "" }
  const expected = Buffer.from(token(authToken, url, dial))
  const given = Buffer.from(query.get("token") ?? "")
  if (!Number.isInteger(dial.timeoutSeconds) || given.length !== expected.length || !Crypto.timingSafeEqual(given, expected)) return "forged"
  return dial
}

/** The document of a transfer: the `<Dial>` of the target, reporting to the result URL. */
export const dialDocument = (resultUrl: string, dial: Dial): string => {
  const url = escapeXml(base(resultUrl))
  const leg = isSipTarget(dial.target) ? `<User>${escapeXml(dial.target)}</User>` : `<Number>${escapeXml(wireAddress(dial.target))}</Number>`
  const callerId = dial.callerId === "" ? "" : ` callerId="${escapeXml(dial.callerId)}"`
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Dial action="${url}" method="POST" redirect="true" timeout="${dial.timeoutSeconds}"${callerId} callbackUrl="${url}" callbackMethod="POST">${leg}</Dial></Response>`
}

const dialOutcome = (status: string): TransferOutcome | undefined => {
  switch (status) {
    case "completed":
    case "answer":
      return "answered"
    case "busy":
      return "busy"
    case "timeout":
    case "no-answer":
      return "no_answer"
    case "failed":
    case "cancel":
      return "failed"
    default:
      return undefined
  }
}

/**
 * A result request's parameters as the transfer's result (pure): the dial's `action` (`DialStatus`) or
 * its `callbackUrl` (`DialAction`: `answer` is a result, the others progress); a string when it is
 * neither.
 */
export const parseResult = (params: Params, now: number): TransferResult | undefined | string => {
  const status = param(params, "DialStatus")?.toLowerCase()
  const cause = param(params, "DialHangupCause") ?? param(params, "DialBLegHangupCauseName")
  if (status !== undefined && status !== "") {
    const outcome = dialOutcome(status)
    if (outcome === undefined) return `unknown dial status ${JSON.stringify(status)}`
    return { outcome, at: now, cause: `DialStatus=${status}${cause !== undefined && cause !== "" ? `, ${cause}` : ""}` }
  }
  const action = param(params, "DialAction")?.toLowerCase()
  if (action === "answer") return { outcome: "answered", at: now, cause: "DialAction=answer" }
  if (action !== undefined && action !== "") return undefined
  return "a transfer result without DialStatus or DialAction"
}

const xml = (body: string): WebhookResponse => ({
  status: 200,
  contentType: "application/xml",
  body: `<?xml version="1.0" encoding="UTF-8"?>\n<Response>${body}</Response>`
})

/** `webhooks.parseTransferResult`: the fetch of the transfer's document is no result (its token must hold). */
export const parseTransferResult = (failure: (message: string) => TelephonyError) =>
({ config, request }: { readonly config: PlivoCompatibleConfig; readonly request: WebhookRequest }) =>
  Effect.gen(function*() {
    const dial = dialOf(config.auth_token, request.url)
    if (dial === "forged") return yield* Effect.fail(failure("a transfer document request whose dial token does not hold"))
    if (dial !== undefined) return undefined
    const parsed = parseResult(paramsOf(request.rawBody), yield* Clock.currentTimeMillis)
    if (typeof parsed === "string") return yield* Effect.fail(failure(parsed))
    return parsed
  })

/**
 * `webhooks.transferAnswer`: the transfer's document for its fetch; `<Hangup/>` for the dial's
 * `action` (the caller's call ends with the dial); an empty document for `callbackUrl` notices.
 */
export const transferAnswer = (
  { config, request }: { readonly request?: WebhookRequest | undefined; readonly config?: PlivoCompatibleConfig | undefined }
): WebhookResponse => {
  if (request === undefined) return xml("")
  const dial = config === undefined ? undefined : dialOf(config.auth_token, request.url)
  if (dial !== undefined && dial !== "forged") return { ...xml(""), body: dialDocument(request.url, dial) }
  const params = paramsOf(request.rawBody)
  return param(params, "DialStatus") !== undefined ? xml("<Hangup/>") : xml("")
}

/** `calls.transfer`: the live call's A leg fetches the transfer's document. */
export const transfer = (rest: Rest) => (input: TransferCall<PlivoCompatibleConfig>) =>
  Effect.gen(function*() {
    const what = `transfer the call to ${input.target}`
    const response = yield* rest.send(input.config, {
      method: "POST",
      path: `Call/${encodeURIComponent(input.providerCallId)}/`,
      what,
      body: { legs: "aleg", aleg_url: alegUrl(input.config.auth_token, input), aleg_method: "POST" }
    })
    if (response.status >= 200 && response.status < 300) return
    if (response.status === 404) {
      return yield* Effect.fail(rest.failure(`${rest.dialect.displayName} cannot transfer the call: it is not live (it is over)`, false))
    }
    return yield* rest.refused(what, response)
  })
