/**
 * Pure parts of ARI calling: the dial string of a number, the `appArgs` that tie a Stasis channel to
 * its attempt, ARI's event timestamps, and the Q.850 hang-up causes Asterisk reports on
 * `ChannelDestroyed` mapped to the normalized outcomes.
 */
import { type CallOutcome, type CallStatus, type ProviderCalls, TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either } from "effect"
import * as AriChannels from "./Channels.js"
import type { AriConfig } from "./Config.js"
import * as AriRest from "./Rest.js"

/** What a number is dialed through when the configuration says nothing: a PJSIP endpoint of that name. */
export const DEFAULT_DIAL_STRING = "PJSIP/{number}"

/**
 * A dial-string template is a channel technology, a slash and a resource naming `{number}` (the
 * normalized address, `+14155550100`) or `{digits}` (the same without `+`): `PJSIP/{number}@trunk`,
 * `PJSIP/trunk/sip:{digits}@carrier.example`, `Local/{digits}@from-internal` (FreePBX's outbound
 * routes), `SIP/{number}`. Whitespace, commas and `&` are refused: ARI would read them as separators.
 */
export const DIAL_TEMPLATE = /^[A-Za-z][A-Za-z0-9_-]*\/[^\s,&]*\{(number|digits)\}[^\s,&]*$/

export const validDialTemplate = (template: string): boolean => DIAL_TEMPLATE.test(template)

/**
 * The `endpoint` of `POST /ari/channels` for `to`. An address that already names a channel
 * technology (`PJSIP/6001`, `SIP/...`, `Local/...`) is dialed as it is; anything else goes through the
 * template. Characters ARI or the dialplan would misread are refused (`undefined`).
 */
export const dialString = (template: string, to: string): string | undefined => {
  const address = to.trim()
  if (address === "" || /[\s,&{}]/.test(address)) return undefined
  if (/^(PJSIP|SIP|IAX2|Local|DAHDI)\//i.test(address)) return address
  return template.replaceAll("{number}", address).replaceAll("{digits}", address.replace(/^\+/, ""))
}

/** The Stasis `appArgs` of an outbound channel: which attempt it is (`attempt_id=42`). */
export const appArgs = (attemptId: number) => `attempt_id=${attemptId}`

/** The attempt named in a StasisStart's `args`, if any. */
export const attemptOfArgs = (args: ReadonlyArray<string>): number | undefined => {
  for (const arg of args) {
    const match = /^attempt_id=([1-9][0-9]{0,15})$/.exec(arg.trim())
    if (match !== null) return Number(match[1])
  }
  return undefined
}

/**
 * An ARI timestamp as epoch milliseconds. Asterisk writes `2025-01-01T12:00:00.123+0000` (no colon in
 * the offset, which `Date.parse` does not read everywhere); `fallback` when it is missing or unreadable.
 */
export const timestampMillis = (timestamp: unknown, fallback: number): number => {
  if (typeof timestamp !== "string") return fallback
  const parsed = Date.parse(timestamp.replace(/([+-]\d\d)(\d\d)$/, "$1:$2"))
  return Number.isNaN(parsed) ? fallback : parsed
}

/**
 * The outcome of a channel that was never answered (never entered Stasis), from its Q.850 cause:
 * 17 user busy and 21 call rejected are busy (the callee refused, a retry may reach them), 18 no user
 * response, 19 no answer, 20 subscriber absent are no_answer; everything else (1 unallocated, 3 no
 * route, 27 out of order, 28 invalid format, 34 congestion, 38 network out of order, 41 temporary
 * failure, 127 interworking, 16 without an answer ...) could not be connected: failed.
 */
export const unansweredOutcome = (cause: number | undefined): CallOutcome => {
  switch (cause) {
    case 17:
    case 21:
      return "busy"
    case 18:
    case 19:
    case 20:
      return "no_answer"
    default:
      return "failed"
  }
}

/**
 * How a call ended: answered calls complete whatever the cause (someone hung up); a call we hung up
 * before it was answered is canceled; otherwise the cause decides.
 */
export const outcomeOf = (input: {
  readonly answered: boolean
  readonly canceledByUs: boolean
  readonly cause: number | undefined
}): CallOutcome => (input.answered ? "completed" : input.canceledByUs ? "canceled" : unansweredOutcome(input.cause))

/** The cause for the run's log: `17 User busy`, or the number alone. */
export const causeText = (cause: number | undefined, text: unknown): string | undefined =>
  cause === undefined ? undefined : typeof text === "string" && text !== "" ? `${cause} ${text}` : String(cause)

/** How long an outbound channel rings before Asterisk gives up (the originate `timeout`). */
export const RING_TIMEOUT_SECONDS = 60

/**
 * ARI's `calls`: a call is originated into the configuration's Stasis application (`POST /ari/channels`,
 * with a channel id chosen by us); `hangUp` is `DELETE /ari/channels/{id}` (a call already gone is
 * fine); `get` asks Asterisk for the channel (alive: in progress) and otherwise answers from what this
 * process saw end: ARI keeps no record of ended calls, so after a restart an unknown channel is
 * `Unknown`, never a guess.
 */
export const make = (send: AriRest.Rest["send"], channels: ReturnType<typeof AriChannels.make>): ProviderCalls<AriConfig> => {
  const place: ProviderCalls<AriConfig>["place"] = (input) =>
    Effect.gen(function*() {
      const { config } = input
      const endpoint = dialString(config.dial_string === "" ? DEFAULT_DIAL_STRING : config.dial_string, input.to)
      if (endpoint === undefined) {
        return yield* new TelephonyError({ provider: "ari", message: `${input.to} cannot be dialed through Asterisk: it is not a dialable address`, retryable: false })
      }
      // Chosen by us so the call is known before Asterisk answers (its events may come before the
      // reply), and the same for every try of this attempt: Asterisk refuses a second channel with the
      // id (409), so a retried request whose first try got through does not dial twice.
      const channelId = `agentline-${channels.instance}-${input.attemptId}`
      channels.track(AriChannels.newCall({ channelId, config, attemptId: input.attemptId, onEvent: input.onEvent, whenAnswered: input.whenAnswered }))
      const placed = yield* send({
        config,
        method: "POST",
        path: "/channels",
        query: {
          endpoint,
          app: config.app_name,
          appArgs: appArgs(input.attemptId),
          channelId,
          callerId: input.from,
          timeout: String(RING_TIMEOUT_SECONDS)
        },
        what: `dial ${input.to}`
      }).pipe(Effect.tapError(() => Effect.sync(() => channels.drop(channelId))))
      // 409: an earlier try of this attempt created the channel; it is the call.
      if (Either.isLeft(placed) && placed.left.status !== 409) {
        channels.drop(channelId)
        // Asterisk answers 500 "Allocation failed" when it cannot make the channel at all (no such
        // endpoint or trunk, a technology it lacks): the dial string is wrong, trying again cannot help.
        if (placed.left.status === 500 && placed.left.message === "Allocation failed") {
          return yield* new TelephonyError({
            provider: "ari",
            message: `Asterisk could not create a channel to dial ${input.to} (${endpoint}): no such endpoint or trunk; check the dial string (HTTP 500 Allocation failed)`,
            retryable: false
          })
        }
        return yield* AriRest.failure(placed.left, `dial ${input.to} (${endpoint})`)
      }
      yield* input.onEvent({ type: "initiated", providerCallId: channelId, at: yield* Clock.currentTimeMillis }, AriChannels.durable)
      return { providerCallId: channelId }
    })

  const hangUp: ProviderCalls<AriConfig>["hangUp"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const call = channels.call(providerCallId)
      if (call !== undefined && call.answeredAt === undefined && call.ended === undefined) call.canceledByUs = true
      const deleted = yield* send({
        config,
        method: "DELETE",
        path: `/channels/${encodeURIComponent(providerCallId)}`,
        query: { reason: "normal" },
        what: "hang up the call"
      })
      // 404: the channel is gone already, which is what a hang-up wants.
      if (Either.isLeft(deleted) && deleted.left.status !== 404) return yield* AriRest.failure(deleted.left, "hang up the call")
    })

  const get: ProviderCalls<AriConfig>["get"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const known = channels.call(providerCallId)?.ended
      if (known !== undefined) {
        return { _tag: "Ended", outcome: known.outcome.outcome, durationSeconds: known.outcome.durationSeconds } satisfies CallStatus
      }
      const found = yield* send({ config, method: "GET", path: `/channels/${encodeURIComponent(providerCallId)}`, what: "look the call up" })
      if (Either.isRight(found)) return { _tag: "InProgress" } satisfies CallStatus
      return {
        _tag: "Unknown",
        reason: found.left.status === 404
          ? `Asterisk has no channel ${providerCallId} any more, and ARI keeps no record of ended calls`
          : AriRest.failure(found.left, "look the call up").message
      } satisfies CallStatus
    }).pipe(Effect.catchAll((e) => Effect.succeed({ _tag: "Unknown", reason: e.message } satisfies CallStatus)))

  return { place, hangUp, get }
}
