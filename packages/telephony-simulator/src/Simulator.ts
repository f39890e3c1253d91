/**
 * A telephony provider that places no real call: each call plays out on Effect's Clock (so TestClock
 * drives it) and reports the same normalized events a real provider's callbacks produce:
 * initiated, ringing, then answered and ended (`completed`, `voicemail`) or just ended (`busy`,
 * `no_answer`, `failed`, `canceled`).
 *
 * The configuration chooses the outcome per dialed number: rules match a number exactly or by its
 * longest prefix and give one outcome per attempt (`["busy", "completed"]`: busy first, answered on
 * the retry; the last one repeats), else `default_outcome`; `failure_rate` turns a seeded share of
 * calls into provider failures.
 */
import { CallOutcome, type CallEvent, type CallStatus, type ProviderField, type TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Clock, Effect, Fiber, FiberSet, Schema, type Scope } from "effect"

const seconds = (name: string, max: number, value: number) =>
  Schema.optionalWith(
    Schema.Number.pipe(Schema.between(0, max, { message: () => `${name} must be between 0 and ${max}` })),
    { default: () => value }
  )

export const Rule = Schema.Struct({
  match: Schema.Literal("prefix", "exact"),
  pattern: Schema.String.pipe(Schema.minLength(1)),
  outcomes: Schema.NonEmptyArray(CallOutcome)
})

export const SimulatorConfig = Schema.Struct({
  default_outcome: Schema.optionalWith(CallOutcome, { default: () => "completed" as const }),
  rules: Schema.optionalWith(Schema.Array(Rule).pipe(Schema.maxItems(10_000)), { default: () => [] }),
  ring_seconds: seconds("ring_seconds", 600, 2),
  talk_seconds: seconds("talk_seconds", 3600, 5),
  failure_rate: seconds("failure_rate", 1, 0),
  seed: Schema.optionalWith(Schema.Int, { default: () => 1 }),
  place_call_latency_ms: Schema.optionalWith(Schema.Int.pipe(Schema.between(0, 60_000)), { default: () => 0 })
})
export type SimulatorConfig = typeof SimulatorConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  {
    name: "default_outcome",
    label: "Default outcome",
    type: "select",
    required: false,
    sensitive: false,
    options: CallOutcome.literals.map((o) => ({ value: o, label: o })),
    description: "Outcome of calls no rule matches"
  },
  { name: "rules", label: "Rules", type: "json", required: false, sensitive: false, description: "[{match: prefix|exact, pattern, outcomes: [one per attempt]}]" },
  { name: "ring_seconds", label: "Ring seconds", type: "number", required: false, sensitive: false },
  { name: "talk_seconds", label: "Talk seconds", type: "number", required: false, sensitive: false },
  { name: "failure_rate", label: "Failure rate", type: "number", required: false, sensitive: false, description: "Share of calls that fail (0 to 1)" },
  { name: "seed", label: "Seed", type: "number", required: false, sensitive: false },
  { name: "place_call_latency_ms", label: "API latency (ms)", type: "number", required: false, sensitive: false }
]

/** The outcome for the n-th call (0-based) to `to`: exact rule, else longest matching prefix, else the default. */
export const outcomeFor = (config: SimulatorConfig, to: string, attempt: number): CallOutcome => {
  let best: typeof config.rules[number] | undefined
  for (const rule of config.rules) {
    if (rule.match === "exact" && rule.pattern === to) {
      best = rule
      break
    }
    if (rule.match === "prefix" && to.startsWith(rule.pattern) && (best === undefined || (best.match === "prefix" && rule.pattern.length > best.pattern.length))) {
      best = rule
    }
  }
  if (best === undefined) return config.default_outcome
  return best.outcomes[Math.min(attempt, best.outcomes.length - 1)]!
}

/** mulberry32: a tiny seeded generator, so failure rates are reproducible. */
const random = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface CallState {
  status: "ringing" | "answered" | "ended"
  outcome?: CallOutcome
  duration?: number
  fiber?: Fiber.RuntimeFiber<void>
  readonly emit: (event: CallEvent) => Effect.Effect<void>
  answeredAt?: number
}

/** A simulator instance. Its calls run in the scope it is made in (they end when the application stops). */
export const make: Effect.Effect<TelephonyProvider<SimulatorConfig>, never, Scope.Scope> = Effect.gen(function*() {
  const calls = yield* FiberSet.make()
  const states = new Map<string, CallState>()
  const attempts = new Map<string, number>()
  const generators = new Map<number, () => number>()
  let counter = 0

  const end = (id: string, outcome: CallOutcome, duration: number) =>
    Effect.gen(function*() {
      const state = states.get(id)
      if (!state || state.status === "ended") return
      state.status = "ended"
      state.outcome = outcome
      state.duration = duration
      yield* state.emit({ type: "ended", providerCallId: id, at: yield* Clock.currentTimeMillis, outcome, durationSeconds: duration, hangupCause: "simulated" })
    })

  const play = (id: string, config: SimulatorConfig, outcome: CallOutcome) =>
    Effect.gen(function*() {
      const state = states.get(id)!
      const now = Clock.currentTimeMillis
      yield* state.emit({ type: "initiated", providerCallId: id, at: yield* now })
      yield* state.emit({ type: "ringing", providerCallId: id, at: yield* now })
      yield* Effect.sleep(config.ring_seconds * 1000)
      if (outcome === "completed" || outcome === "voicemail") {
        state.status = "answered"
        state.answeredAt = yield* now
        yield* state.emit({ type: "answered", providerCallId: id, at: state.answeredAt })
        yield* Effect.sleep(config.talk_seconds * 1000)
        yield* end(id, outcome, config.talk_seconds)
      } else {
        yield* end(id, outcome, 0)
      }
    })

  const provider: TelephonyProvider<SimulatorConfig> = {
    name: "simulator",
    displayName: "Simulator (no real calls)",
    configSchema: SimulatorConfig,
    fields,
    accountId: () => undefined,
    placeCall: (input) =>
      Effect.gen(function*() {
        if (input.config.place_call_latency_ms > 0) yield* Effect.sleep(input.config.place_call_latency_ms)
        const attempt = attempts.get(input.to) ?? 0
        attempts.set(input.to, attempt + 1)
        let outcome = outcomeFor(input.config, input.to, attempt)
        if (input.config.failure_rate > 0) {
          const draw = generators.get(input.config.seed) ?? random(input.config.seed)
          generators.set(input.config.seed, draw)
          if (draw() < input.config.failure_rate) outcome = "failed"
        }
        const id = `sim-${++counter}`
        const state: CallState = { status: "ringing", emit: input.onEvent }
        states.set(id, state)
        state.fiber = yield* FiberSet.run(calls, play(id, input.config, outcome))
        return { providerCallId: id }
      }),
    hangup: ({ providerCallId }) =>
      Effect.gen(function*() {
        const state = states.get(providerCallId)
        if (!state) return yield* new TelephonyError({ provider: "simulator", message: `no call ${providerCallId}`, retryable: false })
        if (state.status === "ended") return
        if (state.fiber) yield* Fiber.interrupt(state.fiber)
        const now = yield* Clock.currentTimeMillis
        const duration = state.answeredAt === undefined ? 0 : Math.round((now - state.answeredAt) / 1000)
        yield* end(providerCallId, "canceled", duration)
      }),
    getCall: ({ providerCallId }) =>
      Effect.sync((): CallStatus => {
        const state = states.get(providerCallId)
        if (!state) return { _tag: "Unknown", reason: `the simulator has no call ${providerCallId} (it does not survive a restart)` }
        return state.status === "ended"
          ? { _tag: "Ended", outcome: state.outcome!, durationSeconds: state.duration! }
          : { _tag: "InProgress" }
      }),
    parseCallback: ({ request }) =>
      Effect.try({
        try: () => {
          const body = JSON.parse(new TextDecoder().decode(request.rawBody))
          const at = typeof body.at === "number" ? body.at : Date.now()
          if (body.event === "ended") {
            return [{
              type: "ended" as const,
              providerCallId: String(body.call_id),
              at,
              outcome: Schema.decodeUnknownSync(CallOutcome)(body.outcome),
              durationSeconds: Number(body.duration ?? 0)
            }]
          }
          if (!["initiated", "ringing", "answered"].includes(body.event)) throw new Error(`unknown event ${body.event}`)
          return [{ type: body.event as "initiated" | "ringing" | "answered", providerCallId: String(body.call_id), at }]
        },
        catch: (e) => new TelephonyError({ provider: "simulator", message: `bad callback: ${(e as Error).message}`, retryable: false })
      }),
    verifySignature: () => Effect.succeed(true),
    configureInbound: ({ address, webhookUrl }) =>
      Effect.succeed({ ok: true, message: webhookUrl === null ? `simulated: inbound removed for ${address}` : `simulated: ${address} → ${webhookUrl}` }),
    checkOwnership: () => Effect.succeed(true)
  }
  return provider
})
