/**
 * The contract's configuration and calls: the schema and its field list, outcomes as normalized events
 * (exactly one end per call), machine detection, refusals, signatures, duplicate and out-of-order
 * callbacks, hang-up, what `get` tells for recovery, and the provider's transient failures.
 */
import { expect } from "@effect/vitest"
import { Effect, ParseResult, Schema, SchemaAST } from "effect"
import type { CallEvent, TelephonyError, TelephonyProvider } from "../TelephonyProvider.js"
import type { Scenario } from "./Carrier.js"
import { callAndWait, Contract, type ContractIt, endOf, eventuallyValue, freshNumber, placeTo } from "./ContractSetup.js"

const schemaKeys = (adapter: TelephonyProvider) => {
  const ast = SchemaAST.encodedAST(adapter.configSchema.ast)
  return SchemaAST.isTypeLiteral(ast) ? ast.propertySignatures.map((s) => ({ name: String(s.name), required: !s.isOptional })) : []
}

/** What an event says of the call, whenever and however it was read: its kind, and for an end its outcome and talk time. */
const said = (event: CallEvent) =>
  JSON.stringify(
    event.type === "ended" ? [event.type, event.providerCallId, event.outcome, event.durationSeconds] : [event.type, event.providerCallId]
  )

/** The sensitive values of the configuration body, long enough not to appear by chance. */
const secretsOf = (adapter: TelephonyProvider, body: Record<string, unknown>) =>
  adapter.fields.filter((f) => f.sensitive).map((f) => body[f.name]).filter((v): v is string => typeof v === "string" && v.length >= 6)

export const configurationTests = (it: ContractIt) => {
  it.effect("the configuration: fields list exactly the schema's keys and requiredness; every missing field at once; a stable round trip", () =>
    Effect.gen(function*() {
      const { adapter, body, carrier, config } = yield* Contract
      expect(adapter.name).toBe(carrier.provider)
      expect(adapter.displayName.length).toBeGreaterThan(0)
      const keys = schemaKeys(adapter)
      expect(adapter.fields.map((f) => ({ name: f.name, required: f.required }))).toEqual(keys)
      // A sensitive field is masked in its input (password, textarea), except an account identifier that is
      // kept encrypted but shown as text (`identifierField`: Twilio's Account SID, Plivo's auth id).
      for (const field of adapter.fields) if (field.sensitive) expect(["password", "textarea", "text"]).toContain(field.type)
      expect(adapter.fields.filter((f) => f.sensitive && f.type === "text" && !/(sid|id)$/i.test(f.name)).map((f) => f.name)).toEqual([])
      const missing = Schema.decodeUnknownEither(adapter.configSchema)({})
      const required = keys.filter((k) => k.required).map((k) => k.name)
      expect(missing._tag).toBe(required.length > 0 ? "Left" : "Right")
      if (missing._tag === "Left") {
        const paths = new Set(ParseResult.ArrayFormatter.formatErrorSync(missing.left).map((issue) => String(issue.path[0])))
        expect(required.filter((name) => !paths.has(name))).toEqual([])
      }
      // Unknown keys are dropped (clients echo `provider` and `from_numbers`), strings trimmed.
      const given = body({ machineDetection: false })
      const padded = Object.fromEntries(Object.entries(given).map(([k, v]) => [k, typeof v === "string" ? ` ${v}\n` : v]))
      expect(Schema.decodeUnknownSync(adapter.configSchema)({ ...padded, provider: carrier.provider, from_numbers: ["+14155550100"] }))
        .toEqual(config({ machineDetection: false }))
      const stored = JSON.parse(JSON.stringify(Schema.encodeSync(adapter.configSchema)(config({ machineDetection: false }))))
      expect(Schema.decodeUnknownSync(adapter.configSchema)(stored)).toEqual(config({ machineDetection: false }))
      expect(typeof adapter.accountId(config({ machineDetection: false }))).toBe("string")
    }))

  it.effect("answering machine detection is a configuration flag exactly when the provider has it", () =>
    Effect.gen(function*() {
      const { adapter, carrier } = yield* Contract
      const flags = adapter.fields.map((f) => f.name).filter((name) => /amd|machine/i.test(name))
      expect(flags.length > 0).toBe(carrier.machineDetection !== false)
    }))
}

export const callTests = (it: ContractIt) => {
  const outcomes: ReadonlyArray<Scenario> = ["completed", "busy", "no_answer", "failed"]
  for (const scenario of outcomes) {
    it.effect(`a callee that ends ${scenario}: normalized events of the placed call, exactly one end, outcome ${scenario}`, () =>
      Effect.gen(function*() {
        const { carrier } = yield* Contract
        const { call, ended } = yield* callAndWait(scenario)
        expect(ended.outcome).toBe(scenario)
        expect(call.events.filter((e) => e.type === "ended")).toHaveLength(1)
        // One call, one id in its events (Plivo's `place` may answer with the request's id when the call
        // ended before it had its own: the application files events by attempt, not by that id).
        expect(new Set([...call.events, ...call.late].map((e) => e.providerCallId)).size).toBe(1)
        for (const event of [...call.events, ...call.late]) expect(Number.isFinite(event.at)).toBe(true)
        if (scenario === "completed") {
          expect(call.events.map((e) => e.type)).toEqual(
            expect.arrayContaining([...(carrier.answeredProgress ?? ["ringing", "answered", "ended"])])
          )
          expect(ended.durationSeconds).toBeGreaterThan(0)
        } else {
          expect(ended.durationSeconds).toBe(0)
          expect(call.events.some((e) => e.type === "answered")).toBe(false)
        }
      }))
  }

  it.effect("with machine detection, an answering machine ends the call voicemail; a person still completes", () =>
    Effect.gen(function*() {
      const { carrier } = yield* Contract
      if (carrier.machineDetection === false) return
      expect((yield* callAndWait("voicemail", { machineDetection: true })).ended.outcome).toBe("voicemail")
      expect((yield* callAndWait("completed", { machineDetection: true })).ended.outcome).toBe("completed")
    }))

  it.effect("a number the provider refuses fails `place` at once: not retryable, in the provider's words, no credentials", () =>
    Effect.gen(function*() {
      const { adapter, body, callerId, carrier, config, fake, host } = yield* Contract
      if (carrier.refusesNumbers === false) return
      const to = freshNumber()
      fake.behave(to, "invalid")
      const error: TelephonyError = yield* Effect.flip(host.place({ to, from: callerId, config: config({ machineDetection: false }) }))
      expect(error).toMatchObject({ _tag: "TelephonyError", provider: adapter.name, retryable: false })
      expect(error.message).toContain(to.replace(/^\+/, ""))
      for (const secret of secretsOf(adapter, body({ machineDetection: false }))) expect(error.message).not.toContain(secret)
    }))

  it.effect("callbacks with a wrong or missing signature are refused; a replayed one verifies again and changes nothing", () =>
    Effect.gen(function*() {
      const { fake } = yield* Contract
      const { call, ended } = yield* callAndWait("busy")
      const before = [...call.events]
      expect(yield* Effect.promise(() => fake.forgeCallback(call.providerCallId!, "wrong"))).toBe(401)
      expect(yield* Effect.promise(() => fake.forgeCallback(call.providerCallId!, "missing"))).toBe(401)
      const replayed = yield* Effect.promise(() => fake.resendCallbacks(call.providerCallId!, "same"))
      expect(replayed.length).toBeGreaterThan(0)
      expect(replayed.every((status) => status >= 200 && status < 300)).toBe(true)
      expect(call.events).toEqual(before)
      // What a replay says is what the first delivery said: an end replayed is the same end.
      for (const late of call.late.filter((e) => e.type === "ended")) expect(said(late)).toBe(said(ended))
    }))

  it.effect("duplicate and out-of-order callbacks never reopen or change a finished call", () =>
    Effect.gen(function*() {
      const { fake } = yield* Contract
      const { call, ended } = yield* callAndWait("completed")
      const before = [...call.events]
      const statuses = yield* Effect.promise(() => fake.resendCallbacks(call.providerCallId!, "reverse"))
      expect(statuses.every((status) => status >= 200 && status < 300)).toBe(true)
      expect(call.events).toEqual(before)
      const late = yield* eventuallyValue(Effect.sync(() => (call.late.length > 0 ? call.late : undefined)), "the replayed events")
      // A progress report (ringing, answered, ...) after the end is among them, and changes nothing.
      expect(late.some((e) => e.type !== "ended")).toBe(true)
      for (const again of late.filter((e) => e.type === "ended")) expect(said(again)).toBe(said(ended))
    }))

  it.effect("hang-up ends a ringing call canceled (or says it cannot); `get` tells a call in progress from one that ended; hanging up again succeeds", () =>
    Effect.gen(function*() {
      const { adapter, carrier, config, fake } = yield* Contract
      const calling = adapter.calls!
      const { call } = yield* placeTo("no_answer")
      const providerCallId = call.providerCallId!
      const input = { config: config({ machineDetection: false }), providerCallId }
      // Just placed, a call may still be queued at the carrier for a moment (known there by another id),
      // which `get` rightly reports as Unknown: ask until the carrier has it.
      const first = yield* eventuallyValue(
        Effect.map(calling.get(input), (s) => (s._tag === "Unknown" ? undefined : s)),
        "the call to be known"
      )
      expect(first._tag).toBe("InProgress")
      if (carrier.endsRingingCalls === false) {
        // The provider cannot: the adapter says so, and the call rings on until the callee's end.
        expect(yield* Effect.flip(calling.hangUp(input))).toMatchObject({ _tag: "TelephonyError", retryable: false })
        expect(yield* Effect.promise(() => fake.ended(providerCallId))).toBe("no_answer")
        expect((yield* endOf(call)).outcome).toBe("no_answer")
        yield* calling.hangUp(input)
        return
      }
      yield* calling.hangUp(input)
      expect(yield* Effect.promise(() => fake.ended(providerCallId))).toBe("canceled")
      expect((yield* endOf(call)).outcome).toBe("canceled")
      const after = yield* eventuallyValue(
        Effect.map(calling.get(input), (s) => (s._tag === "Ended" ? s : undefined)),
        "`get` to tell the end"
      )
      expect(after).toMatchObject({ _tag: "Ended", outcome: "canceled", durationSeconds: 0 })
      yield* calling.hangUp(input)
      expect((yield* calling.get({ ...input, providerCallId: "00000000-0000-4000-8000-00000000dead" }))._tag).toBe("Unknown")
    }))

  it.effect("`get` of a call that ended as answered says so, with its talk time", () =>
    Effect.gen(function*() {
      const { adapter, config } = yield* Contract
      const { call, ended } = yield* callAndWait("completed")
      const status = yield* eventuallyValue(
        Effect.map(
          adapter.calls!.get({ config: config({ machineDetection: false }), providerCallId: call.providerCallId! }),
          (s) => (s._tag === "Ended" ? s : undefined)
        ),
        "`get` to tell the end"
      )
      expect(status.outcome).toBe("completed")
      expect(Math.abs(status.durationSeconds - ended.durationSeconds)).toBeLessThanOrEqual(1)
    }))

  it.effect("429 and 5xx from the provider fail `place` as retryable, without credentials; the next request goes through", () =>
    Effect.gen(function*() {
      const { adapter, body, callerId, carrier, config, fake, host } = yield* Contract
      if (carrier.transientFailures === false) return
      for (const status of [503, 429, 500]) {
        fake.failNext(status, 1)
        const error = yield* Effect.flip(host.place({ to: freshNumber(), from: callerId, config: config({ machineDetection: false }) }))
        expect(error).toMatchObject({ _tag: "TelephonyError", provider: adapter.name, retryable: true })
        for (const secret of secretsOf(adapter, body({ machineDetection: false }))) expect(error.message).not.toContain(secret)
      }
      expect((yield* callAndWait("completed")).ended.outcome).toBe("completed")
    }))
}
