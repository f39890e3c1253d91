/**
 * A telephony provider that places no real call. Each call plays out on Effect's Clock (so TestClock
 * drives it) and reports the normalized events a real provider's callbacks would produce:
 *
 *   initiated ── place_call_latency_ms ── ringing ── ring_seconds ──┬── answered ── talk_seconds ── ended (completed | voicemail, duration talk_seconds)
 *                                                                    └── ended (busy | no_answer | failed | canceled, duration 0)
 *
 * The outcome of a call depends on the dialed number and on how many calls this simulator has placed
 * to it before: an `exact` rule for the number wins, else the longest matching `prefix` rule, else
 * `default_outcome`. A rule lists one outcome per attempt (`["busy", "completed"]`: busy first,
 * answered on the retry) and its last outcome repeats. `failure_rate` turns that share of calls into
 * `failed`, drawn from `seed`, the number and the attempt, so the same campaign fails the same calls
 * whatever order its calls are placed in.
 *
 * Calls live in memory: after a restart `getCall` answers Unknown for calls of the previous process,
 * and provider call ids carry a per-instance prefix so they are never mistaken for a new call's.
 */
import {
  CallOutcome,
  type CallEvent,
  type CallStatus,
  type PlaceCallInput,
  type ProviderField,
  type TelephonyProvider,
  TelephonyError
} from "@agentline/core/telephony/TelephonyProvider"
import { Clock, Effect, Either, Equal, Fiber, FiberSet, ParseResult, Random, Schema, type Scope } from "effect"

// -------------------------------------------------------------------------------------------- config

const bounded = (name: string, max: number) =>
  Schema.Number.pipe(Schema.between(0, max, { message: () => `${name} must be a number from 0 to ${max}` }))

export const Rule = Schema.Struct({
  match: Schema.Literal("prefix", "exact"),
  pattern: Schema.String.pipe(Schema.minLength(1, { message: () => "pattern must not be empty" })),
  outcomes: Schema.NonEmptyArray(CallOutcome)
})
export type Rule = typeof Rule.Type

export const SimulatorConfig = Schema.Struct({
  default_outcome: Schema.optionalWith(CallOutcome, { default: () => "completed" as const }),
  rules: Schema.optionalWith(Schema.Array(Rule).pipe(Schema.maxItems(10_000)), { default: () => [] }),
  ring_seconds: Schema.optionalWith(bounded("ring_seconds", 600), { default: () => 2 }),
  talk_seconds: Schema.optionalWith(bounded("talk_seconds", 86_400), { default: () => 5 }),
  failure_rate: Schema.optionalWith(bounded("failure_rate", 1), { default: () => 0 }),
  seed: Schema.optionalWith(Schema.Int, { default: () => 1 }),
  place_call_latency_ms: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(0, 60_000, { message: () => "place_call_latency_ms must be an integer from 0 to 60000" })),
    { default: () => 0 }
  )
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })
export type SimulatorConfig = typeof SimulatorConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  {
    name: "default_outcome",
    label: "Default outcome",
    type: "select",
    required: false,
    sensitive: false,
    description: "The outcome of calls no rule matches (default completed)",
    options: CallOutcome.literals.map((o) => ({ value: o, label: o }))
  },
  {
    name: "rules",
    label: "Rules",
    type: "json",
    required: false,
    sensitive: false,
    description: "[{match: \"prefix\" | \"exact\", pattern: \"+1415\", outcomes: [\"busy\", \"completed\"]}]: one outcome per " +
      "attempt to a number, the last one repeating; an exact rule wins over the longest matching prefix. Patterns match " +
      "the dialed address as normalized (E.164 with +)"
  },
  { name: "ring_seconds", label: "Ring seconds", type: "number", required: false, sensitive: false, description: "Ringing time before the outcome (default 2)" },
  { name: "talk_seconds", label: "Talk seconds", type: "number", required: false, sensitive: false, description: "Length of answered calls (default 5)" },
  { name: "failure_rate", label: "Failure rate", type: "number", required: false, sensitive: false, description: "Share of calls that fail, 0 to 1 (default 0)" },
  { name: "seed", label: "Seed", type: "number", required: false, sensitive: false, description: "Seed of the failure draws (default 1)" },
  {
    name: "place_call_latency_ms",
    label: "Ring latency (ms)",
    type: "number",
    required: false,
    sensitive: false,
    description: "Delay between a call being placed and it ringing (default 0)"
  }
]

// ---------------------------------------------------------------------------------------- pure logic

/** The rule that decides calls to `to`: the exact one, else the longest matching prefix. */
export const ruleFor = (rules: ReadonlyArray<Rule>, to: string): Rule | undefined => {
  let best: Rule | undefined
  for (const rule of rules) {
    if (rule.match === "exact") {
      if (rule.pattern === to) return rule
    } else if (to.startsWith(rule.pattern) && (best === undefined || rule.pattern.length > best.pattern.length)) {
      best = rule
    }
  }
  return best
}

/** The scripted outcome of the `attempt`-th call (0-based) to `to`, before the failure draw. */
export const outcomeFor = (
  config: Pick<SimulatorConfig, "rules" | "default_outcome">,
  to: string,
  attempt: number
): CallOutcome => {
  const rule = ruleFor(config.rules, to)
  if (rule === undefined) return config.default_outcome
  return rule.outcomes[Math.min(attempt, rule.outcomes.length - 1)]!
}

/** FNV-1a: a small, stable string hash to key the draws. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

/** One step of mulberry32: a uniform number in [0, 1) from a 32-bit state. */
const mulberry32 = (state: number): number => {
  let t = (state + 0x6d2b79f5) >>> 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The failure draw of one call, in [0, 1): a function of the seed, the number and the attempt only. */
export const failureDraw = (seed: number, to: string, attempt: number): number => mulberry32(fnv1a(`${seed}|${to}|${attempt}`))

/** The outcome of the `attempt`-th call (0-based) to `to`, the failure rate applied. */
export const decideOutcome = (config: SimulatorConfig, to: string, attempt: number): CallOutcome =>
  config.failure_rate > 0 && failureDraw(config.seed, to, attempt) < config.failure_rate ? "failed" : outcomeFor(config, to, attempt)

const answers = (outcome: CallOutcome) => outcome === "completed" || outcome === "voicemail"

/** What the simulator puts in `hangupCause`, in the style of a carrier's cause text. */
const causes: Record<CallOutcome, string> = {
  completed: "simulated: normal clearing",
  voicemail: "simulated: answered by a machine",
  busy: "simulated: user busy",
  no_answer: "simulated: no answer",
  failed: "simulated: call failed",
  canceled: "simulated: canceled"
}

// ------------------------------------------------------------------------------------- the provider

/** Callback body accepted by `parseCallback`, so tests can drive calls over HTTP too. */
export const CallbackBody = Schema.Struct({
  call_id: Schema.String.pipe(Schema.minLength(1)),
  event: Schema.Literal("initiated", "ringing", "answered", "ended"),
  outcome: Schema.optional(CallOutcome),
  duration: Schema.optional(Schema.NonNegative)
})
export type CallbackBody = typeof CallbackBody.Type

const decodeCallback = Schema.decodeUnknownEither(Schema.parseJson(CallbackBody), { errors: "all" })

interface LiveCall {
  answeredAt: number | undefined
  fiber: Fiber.RuntimeFiber<void> | undefined
  readonly emit: (event: CallEvent) => Effect.Effect<void>
}

interface EndedCall {
  readonly outcome: CallOutcome
  readonly durationSeconds: number
}

const error = (message: string) => new TelephonyError({ provider: "simulator", message, retryable: false })

/**
 * A simulator instance with its own calls and attempt counts. Calls are played by fibers owned by the
 * scope `make` runs in, not by the request that placed them: a call outlives its request, and stops
 * (without further events) when that scope closes — the application's, when it shuts down — instead
 * of firing events into a stopped application.
 */
export const make: Effect.Effect<TelephonyProvider<SimulatorConfig>, never, Scope.Scope> = Effect.gen(function*() {
  const players = yield* FiberSet.make<void>()
  const instance = (yield* Random.nextIntBetween(0, 2 ** 31 - 1)).toString(36)
  const live = new Map<string, LiveCall>()
  const ended = new Map<string, EndedCall>()
  const attempts = new Map<string, number>()
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
    ended.set(id, { outcome, durationSeconds })
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

  const play = (id: string, call: LiveCall, config: SimulatorConfig, outcome: CallOutcome) =>
    Effect.gen(function*() {
      yield* progress(id, call, "initiated")
      yield* pause(config.place_call_latency_ms)
      yield* progress(id, call, "ringing")
      yield* pause(config.ring_seconds * 1000)
      if (!answers(outcome)) return yield* finish(id, outcome, 0)
      yield* progress(id, call, "answered")
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

  const placeCall = (input: PlaceCallInput<SimulatorConfig>) =>
    Effect.gen(function*() {
      const attempt = attempts.get(input.to) ?? 0
      attempts.set(input.to, attempt + 1)
      const outcome = decideOutcome(input.config, input.to, attempt)
      const id = `sim-${instance}-${++placed}`
      const call: LiveCall = { answeredAt: undefined, fiber: undefined, emit: input.onEvent }
      live.set(id, call)
      call.fiber = yield* FiberSet.run(players, play(id, call, input.config, outcome))
      return { providerCallId: id }
    })

  const hangup = ({ providerCallId }: { readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const call = live.get(providerCallId)
      if (call === undefined) {
        if (ended.has(providerCallId)) return
        return yield* error(`the simulator has no call ${providerCallId} (calls do not survive a restart)`)
      }
      yield* stop(call)
      const now = yield* Clock.currentTimeMillis
      const duration = call.answeredAt === undefined ? 0 : Math.round((now - call.answeredAt) / 1000)
      yield* finish(providerCallId, "canceled", duration)
    })

  const getCall = ({ providerCallId }: { readonly providerCallId: string }) =>
    Effect.sync((): CallStatus => {
      if (live.has(providerCallId)) return { _tag: "InProgress" }
      const done = ended.get(providerCallId)
      return done !== undefined
        ? { _tag: "Ended", outcome: done.outcome, durationSeconds: done.durationSeconds }
        : { _tag: "Unknown", reason: `the simulator has no call ${providerCallId} (calls do not survive a restart)` }
    })

  const parseCallback = ({ request }: { readonly request: { readonly rawBody: Uint8Array } }) =>
    Effect.gen(function*() {
      const decoded = decodeCallback(new TextDecoder().decode(request.rawBody))
      if (Either.isLeft(decoded)) {
        return yield* error(`bad simulator callback: ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`)
      }
      const body = decoded.right
      const at = yield* Clock.currentTimeMillis
      if (body.event !== "ended") return [{ type: body.event, providerCallId: body.call_id, at }] satisfies Array<CallEvent>
      if (body.outcome === undefined) return yield* error("bad simulator callback: an ended event needs an outcome")
      const durationSeconds = body.duration ?? 0
      // The callback now decides how a call it names ends: its own playback stops, so the consumer
      // sees one `ended` (this one) and getCall agrees with it.
      const call = live.get(body.call_id)
      if (call !== undefined) yield* stop(call)
      settle(body.call_id, body.outcome, durationSeconds)
      return [{ type: "ended", providerCallId: body.call_id, at, outcome: body.outcome, durationSeconds }] satisfies Array<CallEvent>
    })

  return {
    name: "simulator",
    displayName: "Simulator (no real calls)",
    configSchema: SimulatorConfig,
    fields,
    accountId: () => undefined,
    placeCall,
    hangup,
    getCall,
    parseCallback,
    verifySignature: () => Effect.succeed(true),
    configureInbound: ({ address, webhookUrl }) =>
      Effect.succeed({
        ok: true,
        message: webhookUrl === null ? `simulated: inbound calls to ${address} detached` : `simulated: inbound calls to ${address} go to ${webhookUrl}`
      }),
    checkOwnership: () => Effect.succeed(true)
  } satisfies TelephonyProvider<SimulatorConfig>
})
