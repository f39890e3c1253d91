/**
 * A telephony provider that places no real call. Each call plays out on Effect's Clock (so TestClock
 * drives it) and reports the normalized events a real provider's callbacks would produce:
 *
 *   initiated ── place_call_latency_ms ── ringing ── ring_seconds ──┬── answered ── talk_seconds ── ended (completed | voicemail, duration talk_seconds)
 *                                                                    └── ended (busy | no_answer | failed | canceled, duration 0)
 *
 * With callee lines (`callee_lines`, or a rule's `says`) and a voice for the callee (`CalleeVoice`), an
 * answered call that the server asked to connect to a media stream is a conversation instead: the
 * simulated person talks with the agent over that stream (`Callee.ts`), in real time, until
 * either hangs up; the call then ends `completed` with the seconds talked.
 *
 * The outcome of a call depends on the dialed number and on how many calls this simulator has placed
 * to it before: an `exact` rule for the number wins, else the longest matching `prefix` rule, else
 * `default_outcome`. A rule lists one outcome per attempt (`["busy", "completed"]`: busy first,
 * answered on the retry) and its last outcome repeats. `failure_rate` turns that share of calls into
 * `failed`, drawn from `seed`, the number and the attempt, so the same campaign fails the same calls
 * whatever order its calls are placed in.
 *
 * It also speaks the rest of the port the way a carrier would (see `Callbacks.ts` and
 * `Media.ts`): signed status callbacks and inbound calls, answer documents, a media stream.
 *
 * Calls live in memory: after a restart `calls.get` answers Unknown for calls of the previous process,
 * and provider call ids carry a per-instance prefix so they are never mistaken for a new call's.
 */
import type {
  CallEvent,
  CallOutcome,
  CallStatus,
  PlaceCall,
  ProviderCalls,
  ProviderInbound,
  ProviderWebhooks,
  TelephonyProvider,
  WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import type { ProviderMedia } from "@agentline/telephony-kit/Media"
import type { TransferCall } from "@agentline/telephony-kit/Transfer"
import { Clock, Duration, Effect, Equal, Fiber, FiberSet, Random, type Scope } from "effect"
import { converse, voiceOf } from "./Callee.js"
import { fields, SimulatorConfig } from "./Config.js"
import { media } from "./Media.js"
import { answers, causes, decideOutcome, linesFor, transferCauses, transferOutcomeOf } from "./Outcomes.js"
import { answer, error, inboundCall, statusEvent, verify } from "./Callbacks.js"

export * from "./Config.js"
export * from "./Outcomes.js"
export * as Callbacks from "./Callbacks.js"
export * as Media from "./Media.js"
export * as Callee from "./Callee.js"

/** The longest simulated conversation. */
const LONGEST_CONVERSATION = Duration.minutes(10)

/** The simulator implements every part of the port but a per-configuration connection. */
export type SimulatorProvider = TelephonyProvider<SimulatorConfig> & {
  readonly calls: ProviderCalls<SimulatorConfig> & Required<Pick<ProviderCalls<SimulatorConfig>, "transfer">>
  readonly webhooks: ProviderWebhooks<SimulatorConfig>
  readonly media: ProviderMedia
  readonly inbound: ProviderInbound<SimulatorConfig>
}

// ------------------------------------------------------------------------------------- the provider

interface LiveCall {
  answeredAt: number | undefined
  fiber: Fiber.RuntimeFiber<void> | undefined
  readonly emit: (event: CallEvent) => Effect.Effect<void>
}

interface EndedCall {
  readonly outcome: CallOutcome
  readonly durationSeconds: number
}

/** Ended calls and numbers the simulator remembers (its records of older ones are forgotten). */
export const RECORDS_KEPT = 100_000

/** Sets `key` as the newest entry of `map`, forgetting the oldest past `bound` (a Map keeps insertion order). */
export const rememberBounded = <V>(map: Map<string, V>, key: string, value: V, bound: number) => {
  map.delete(key)
  map.set(key, value)
  if (map.size > bound) map.delete(map.keys().next().value!)
}

/**
 * A simulator instance with its own calls and attempt counts. Calls are played by fibers owned by the
 * scope `make` runs in, not by the request that placed them: a call outlives its request, and stops
 * (without further events) when that scope closes — the application's, when it shuts down — instead
 * of firing events into a stopped application.
 */
export const make = (): Effect.Effect<SimulatorProvider, never, Scope.Scope> => Effect.gen(function*() {
  const players = yield* FiberSet.make<void>()
  // The callee's voice, when the application gave one: without it, answered calls are silent.
  const calleeVoice = yield* voiceOf
  const instance = (yield* Random.nextIntBetween(0, 2 ** 31 - 1)).toString(36)
  const live = new Map<string, LiveCall>()
  // The simulated carrier's records: ended calls (for `get`) and calls per number (for rules by attempt),
  // the oldest forgotten past a bound so that a long-running server does not grow with every call.
  const ended = new Map<string, EndedCall>()
  const attempts = new Map<string, number>()
  const remember = <V>(map: Map<string, V>, key: string, value: V) => rememberBounded(map, key, value, RECORDS_KEPT)
  let placed = 0

  /** Delivers an event to the consumer; a consumer defect must not stop the call from playing out. */
  const deliver = (call: LiveCall, event: CallEvent) =>
    call.emit(event).pipe(
      Effect.catchAllCause((cause) => Effect.logWarning(`simulator: the event handler of call ${event.providerCallId} failed`, cause)),
      // Interrupting a call (hangup) must not cut the consumer's handling of an event in half.
      Effect.uninterruptible
    )

  /** Moves a live call to ended; undefined when it had already ended (exactly one `ended` per call). */
  const settle = (id: string, outcome: CallOutcome, durationSeconds: number): LiveCall | undefined => {
    const call = live.get(id)
    if (call === undefined) return undefined
    live.delete(id)
    remember(ended, id, { outcome, durationSeconds })
    return call
  }

  const finish = (id: string, outcome: CallOutcome, durationSeconds: number) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) =>
      // Settling and reporting go together: an interruption between them would end the call silently.
      Effect.uninterruptible(Effect.suspend(() => {
        const call = settle(id, outcome, durationSeconds)
        return call === undefined
          ? Effect.void
          : deliver(call, { type: "ended", providerCallId: id, at, outcome, durationSeconds, hangupCause: causes[outcome] })
      })))

  const pause = (millis: number) => (millis > 0 ? Effect.sleep(millis) : Effect.void)

  /** A progress event, unless the call has ended meanwhile (a hangup from inside an event handler). */
  const progress = (id: string, call: LiveCall, type: "initiated" | "ringing" | "answered") =>
    Effect.gen(function*() {
      if (!live.has(id)) return
      const at = yield* Clock.currentTimeMillis
      if (type === "answered") call.answeredAt = at
      yield* deliver(call, { type, providerCallId: id, at })
    })

  const play = (id: string, call: LiveCall, input: PlaceCall<SimulatorConfig>, outcome: CallOutcome) =>
    Effect.gen(function*() {
      const config = input.config
      yield* progress(id, call, "initiated")
      yield* pause(config.place_call_latency_ms)
      yield* progress(id, call, "ringing")
      yield* pause(config.ring_seconds * 1000)
      if (!answers(outcome)) return yield* finish(id, outcome, 0)
      yield* progress(id, call, "answered")
      const lines = linesFor(config, input.to)
      const stream = input.whenAnswered
      if (outcome === "completed" && lines.length > 0 && calleeVoice !== undefined && stream._tag === "ConnectMediaStream") {
        yield* converse({ url: stream.url, parameters: stream.parameters, callId: id, lines, voice: calleeVoice }).pipe(
          Effect.timeout(LONGEST_CONVERSATION),
          Effect.ignore
        )
        const now = yield* Clock.currentTimeMillis
        return yield* finish(id, "completed", Math.round((now - (call.answeredAt ?? now)) / 1000))
      }
      yield* pause(config.talk_seconds * 1000)
      yield* finish(id, outcome, config.talk_seconds)
    })

  /**
   * Stops a call's playback before its end is reported elsewhere. Awaited, so no progress event can
   * follow that end — except from the playback fiber itself (a consumer hanging up inside its event
   * handler), which cannot await its own end: it is told to stop and emits nothing more.
   */
  const stop = (call: LiveCall) =>
    Effect.gen(function*() {
      if (call.fiber === undefined) return
      const self = yield* Effect.fiberId
      if (Equal.equals(self, call.fiber.id())) yield* Fiber.interruptFork(call.fiber)
      else yield* Fiber.interrupt(call.fiber)
    })

  const place = (input: PlaceCall<SimulatorConfig>) =>
    Effect.gen(function*() {
      const attempt = attempts.get(input.to) ?? 0
      remember(attempts, input.to, attempt + 1)
      const outcome = decideOutcome(input.config, input.to, attempt)
      const id = `sim-${instance}-${++placed}`
      const call: LiveCall = { answeredAt: undefined, fiber: undefined, emit: input.onEvent }
      live.set(id, call)
      call.fiber = yield* FiberSet.run(players, play(id, call, input, outcome))
      return { providerCallId: id }
    })

  const hangUp = ({ providerCallId }: { readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const call = live.get(providerCallId)
      if (call === undefined) {
        if (ended.has(providerCallId)) return
        return yield* error(`the simulator has no call ${providerCallId} (calls do not survive a restart)`)
      }
      yield* stop(call)
      const now = yield* Clock.currentTimeMillis
      // As carriers do: a call not answered yet is canceled, one in progress completed.
      if (call.answeredAt === undefined) return yield* finish(providerCallId, "canceled", 0)
      yield* finish(providerCallId, "completed", Math.round((now - call.answeredAt) / 1000))
    })

  /**
   * A cold transfer: the target's outcome is decided like a call to it (its rules, per attempt). The
   * agent's part stops at once; the target rings (`ring_seconds`, at most the transfer's timeout), the
   * result is reported in-process, and the caller then talks with the person (`talk_seconds`) or, when
   * nobody took the call, is hung up. Either way the call ends `completed`: the caller was reached.
   */
  const transfer = (input: TransferCall<SimulatorConfig>) =>
    Effect.gen(function*() {
      const id = input.providerCallId
      const call = live.get(id)
      if (call === undefined || call.answeredAt === undefined) {
        return yield* error(`the simulator has no answered call ${id} to transfer (it is over, or was never answered)`)
      }
      const answeredAt = call.answeredAt
      const attempt = attempts.get(input.target) ?? 0
      remember(attempts, input.target, attempt + 1)
      const outcome = transferOutcomeOf(decideOutcome(input.config, input.target, attempt))
      yield* stop(call)
      const ring = outcome === "answered" ? input.config.ring_seconds : Math.min(input.config.ring_seconds, input.timeoutSeconds)
      call.fiber = yield* FiberSet.run(
        players,
        Effect.gen(function*() {
          yield* pause(ring * 1000)
          const at = yield* Clock.currentTimeMillis
          yield* input.onResult({ outcome, at, cause: transferCauses[outcome] }).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning(`simulator: the transfer result handler of call ${id} failed`, cause)),
            Effect.uninterruptible
          )
          if (outcome === "answered") yield* pause(input.config.talk_seconds * 1000)
          const now = yield* Clock.currentTimeMillis
          yield* finish(id, "completed", Math.round((now - answeredAt) / 1000))
        })
      )
    })

  const get = ({ providerCallId }: { readonly providerCallId: string }) =>
    Effect.sync((): CallStatus => {
      if (live.has(providerCallId)) return { _tag: "InProgress" }
      const done = ended.get(providerCallId)
      return done !== undefined
        ? { _tag: "Ended", outcome: done.outcome, durationSeconds: done.durationSeconds }
        : { _tag: "Unknown", reason: `the simulator has no call ${providerCallId} (calls do not survive a restart)` }
    })

  const parseStatus = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.gen(function*() {
      const event = yield* statusEvent(request, yield* Clock.currentTimeMillis)
      if (event.type === "ended") {
        // The callback now decides how a call it names ends: its own playback stops, so the consumer
        // sees one `ended` (this one) and `get` agrees with it.
        const call = live.get(event.providerCallId)
        if (call !== undefined) yield* stop(call)
        settle(event.providerCallId, event.outcome, event.durationSeconds)
      }
      return [event]
    })

  return {
    name: "simulator",
    displayName: "Simulator (no real calls)",
    verifyCredentials: () => Effect.succeed({ ok: true, message: "simulated: there are no credentials to check" }),
    configSchema: SimulatorConfig,
    fields,
    accountId: (config) => config.account_id,
    calls: { place, hangUp, get, transfer },
    transfers: { cold: true, warm: false },
    webhooks: {
      verify: ({ config, request }) => Effect.sync(() => verify(config.webhook_secret, request)),
      parseStatus,
      parseInbound: ({ request }) => inboundCall(request),
      answer: ({ instruction }) => answer(instruction)
    },
    media,
    inbound: {
      configure: ({ address, webhookUrl }) =>
        Effect.succeed({
          ok: true,
          message: webhookUrl === null
            ? `simulated: inbound calls to ${address} detached`
            : `simulated: inbound calls to ${address} go to ${webhookUrl}`
        })
    }
  } satisfies SimulatorProvider
})
