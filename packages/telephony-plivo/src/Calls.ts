/**
 * The calls part of a Plivo-compatible adapter:
 *
 *   place    POST   Call/                 {from, to, answer_url, ring_url, hangup_url[, machine_detection...]}
 *                                         → 201 {request_uuid}; then the call uuid, the id we keep: the
 *                                         queued call (GET Call/{request}/?status=queued) or the live
 *                                         call naming the request (GET Call/?status=live&to_number=...)
 *   hang up  DELETE Request/{id}/         a call not yet connected; else
 *            DELETE Call/{id}/            a call known by its call uuid; else the live call whose
 *                                         request uuid it is (GET Call/?status=live, then each one)
 *   get      GET    Call/{id}/?status=queued | ?status=live, the live calls' request uuids, then
 *            GET    Call/{id}/            the finished call's record (by call uuid: a finished call
 *                                         known only by its request uuid is Unknown)
 *
 * Numbers go without their `+` (Plivo's convention); SIP URIs as they are.
 */
import type { CallStatus, ProviderCalls } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Schema } from "effect"
import { statusOfRecord } from "./Callbacks.js"
import type { PlivoCompatibleConfig } from "./Dialect.js"
import type { Rest } from "./Rest.js"

const Placed = Schema.Struct({
  request_uuid: Schema.optional(Schema.Union(Schema.String, Schema.Array(Schema.String))),
  call_uuid: Schema.optional(Schema.String)
})
const LiveCall = Schema.Struct({ call_uuid: Schema.optional(Schema.String), request_uuid: Schema.optional(Schema.NullOr(Schema.String)) })
const LiveCalls = Schema.Struct({ calls: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }) })
const CallRecord = Schema.Struct({
  answer_time: Schema.optional(Schema.NullOr(Schema.String)),
  bill_duration: Schema.optional(Schema.NullOr(Schema.Number)),
  call_duration: Schema.optional(Schema.NullOr(Schema.Number)),
  hangup_cause_name: Schema.optional(Schema.NullOr(Schema.String))
})

/** How a carrier wants an address: E.164 without `+`, SIP URIs unchanged. */
export const wireAddress = (address: string): string => (address.startsWith("+") ? address.slice(1) : address)

/** How many live calls we look through for a request uuid before giving up. */
const LIVE_CALLS_SCANNED = 200
/** How long we look for a new call's call uuid: it is queued or live within a second or two. */
const RESOLVE_TRIES = 20
const RESOLVE_INTERVAL = "150 millis"

export const make = (rest: Rest): ProviderCalls<PlivoCompatibleConfig> => {
  const { dialect } = rest
  const ok = (status: number) => status >= 200 && status < 300
  const id = (value: string) => encodeURIComponent(value)

  /** The call uuid of the live call placed by request `requestUuid` (to `to`, when known), if it is live. */
  const liveCallOf = (config: PlivoCompatibleConfig, requestUuid: string, to?: string) =>
    Effect.gen(function*() {
      const filter = to === undefined ? "" : `&to_number=${encodeURIComponent(wireAddress(to))}`
      const listed = yield* rest.send(config, { method: "GET", path: `Call/?status=live${filter}`, what: "list live calls" })
      if (!ok(listed.status)) return yield* rest.refused("list live calls", listed)
      const { calls } = yield* rest.body(LiveCalls, listed, "the live calls")
      for (const callUuid of calls.slice(0, LIVE_CALLS_SCANNED)) {
        const one = yield* rest.send(config, { method: "GET", path: `Call/${id(callUuid)}/?status=live`, what: "look up a live call" })
        if (one.status === 404) continue
        if (!ok(one.status)) return yield* rest.refused("look up a live call", one)
        const call = yield* rest.body(LiveCall, one, "a live call")
        if (call.request_uuid === requestUuid) return callUuid
      }
      return undefined
    })

  /**
   * The call uuid of the call placed by request `requestUuid`: the queued call names it, or the live
   * call that names the request. Callbacks, hang-up and call records all know the call by it.
   */
  const callUuidOf = (config: PlivoCompatibleConfig, requestUuid: string, to: string) =>
    Effect.gen(function*() {
      for (let tries = 0; tries < RESOLVE_TRIES; tries++) {
        const queued = yield* rest.send(config, { method: "GET", path: `Call/${id(requestUuid)}/?status=queued`, what: "look up the queued call" })
        if (ok(queued.status)) {
          const call = yield* rest.body(LiveCall, queued, "the queued call")
          if (call.call_uuid !== undefined && call.call_uuid !== "") return call.call_uuid
        } else if (queued.status !== 404) {
          return yield* rest.refused("look up the queued call", queued)
        }
        const live = yield* liveCallOf(config, requestUuid, to)
        if (live !== undefined) return live
        yield* Effect.sleep(RESOLVE_INTERVAL)
      }
      return undefined
    })

  const place: ProviderCalls<PlivoCompatibleConfig>["place"] = (input) =>
    Effect.gen(function*() {
      if (input.from === undefined) {
        return yield* Effect.fail(rest.failure(`${dialect.displayName} needs a caller id: add a number to the configuration`, false))
      }
      const callback = { url: input.callbackUrl, method: "POST" }
      const response = yield* rest.send(input.config, {
        method: "POST",
        path: "Call/",
        what: "place a call",
        body: {
          from: wireAddress(input.from),
          to: wireAddress(input.to),
          answer_url: input.answerUrl,
          answer_method: "POST",
          ring_url: callback.url,
          ring_method: callback.method,
          hangup_url: callback.url,
          hangup_method: callback.method,
          // On a machine the carrier hangs up itself; its verdict ends the attempt as voicemail.
          ...(input.config.amd_enabled
            ? { machine_detection: "hangup", machine_detection_url: callback.url, machine_detection_method: callback.method }
            : {})
        }
      })
      if (!ok(response.status)) return yield* rest.refused(`place the call to ${input.to}`, response)
      const placed = yield* rest.body(Placed, response, "the new call")
      const requestUuid = Array.isArray(placed.request_uuid) ? placed.request_uuid[0] : placed.request_uuid
      if (placed.call_uuid !== undefined && placed.call_uuid !== "") return { providerCallId: placed.call_uuid }
      if (requestUuid === undefined || requestUuid === "") {
        return yield* Effect.fail(rest.failure(`${dialect.displayName} accepted the call without naming it`, false))
      }
      if (dialect.requestIsCall) return { providerCallId: requestUuid }
      // Keep the call uuid when it can be learnt; else the request uuid (hang-up and get try both).
      const callUuid = yield* callUuidOf(input.config, requestUuid, input.to).pipe(Effect.orElseSucceed(() => undefined))
      return { providerCallId: callUuid ?? requestUuid }
    })

  const hangUp: ProviderCalls<PlivoCompatibleConfig>["hangUp"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const pending = yield* rest.send(config, { method: "DELETE", path: `Request/${id(providerCallId)}/`, what: "cancel a call" })
      if (ok(pending.status)) return
      if (pending.status !== 404) return yield* rest.refused("cancel the call", pending)
      const direct = yield* rest.send(config, { method: "DELETE", path: `Call/${id(providerCallId)}/`, what: "hang up" })
      if (ok(direct.status)) return
      if (direct.status !== 404) return yield* rest.refused("hang up", direct)
      const callUuid = yield* liveCallOf(config, providerCallId)
      // Neither pending nor live: the call is over, which is what hanging up wants.
      if (callUuid === undefined) return
      const live = yield* rest.send(config, { method: "DELETE", path: `Call/${id(callUuid)}/`, what: "hang up" })
      if (ok(live.status) || live.status === 404) return
      return yield* rest.refused("hang up", live)
    })

  const get: ProviderCalls<PlivoCompatibleConfig>["get"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      for (const status of ["queued", "live"]) {
        const response = yield* rest.send(config, { method: "GET", path: `Call/${id(providerCallId)}/?status=${status}`, what: "look up a call" })
        if (ok(response.status)) return { _tag: "InProgress" } as const
        if (response.status !== 404) return yield* rest.refused("look up the call", response)
      }
      const record = yield* rest.send(config, { method: "GET", path: `Call/${id(providerCallId)}/`, what: "look up a call record" })
      if (record.status === 404) {
        // Not a call uuid the carrier knows: perhaps the request uuid of a live call. Listing live calls
        // costs a request per call, so it is the last resort, not the first.
        if ((yield* liveCallOf(config, providerCallId)) !== undefined) return { _tag: "InProgress" } as const
        return {
          _tag: "Unknown",
          reason: `${dialect.displayName} has no queued, live or finished call ${providerCallId} (finished calls are kept by call uuid)`
        } as const
      }
      if (!ok(record.status)) return yield* rest.refused("look up the call record", record)
      return statusOfRecord(yield* rest.body(CallRecord, record, "the call record"))
    }).pipe(
      // The port's contract: when the carrier cannot be asked, say Unknown (never guess, never re-dial).
      Effect.catchAll((e): Effect.Effect<CallStatus> => Effect.succeed({ _tag: "Unknown", reason: e.message }))
    )

  return { place, hangUp, get }
}
