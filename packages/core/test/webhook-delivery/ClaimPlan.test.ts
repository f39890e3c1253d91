import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { type Candidate, type InFlight, orderingKeyOf, planClaims, slotOf } from "../../src/webhook-delivery/ClaimPlan.js"

interface Due extends Candidate {
  readonly id: number
}

const nothingInFlight: InFlight = { total: 0, perSlot: new Map(), keys: new Set() }
const due = (id: number, slot: string, key: string): Due => ({ id, slot, key })
const ids = (plan: ReadonlyArray<Due>) => plan.map((d) => d.id)

describe("which due deliveries one look claims", () => {
  it("one endpoint, many runs: as many as its free slots, one per run, in the outbox's order", () => {
    const backlog = Array.from({ length: 40 }, (_, i) => due(i, "endpoint:1", `endpoint:1:run:${i}`))
    expect(ids(planClaims(backlog, nothingInFlight, { maxInFlight: 64, maxInFlightPerSlot: 16 }))).toEqual(
      Array.from({ length: 16 }, (_, i) => i)
    )
    const busy: InFlight = { total: 10, perSlot: new Map([["endpoint:1", 10]]), keys: new Set() }
    expect(ids(planClaims(backlog, busy, { maxInFlight: 64, maxInFlightPerSlot: 16 }))).toEqual([0, 1, 2, 3, 4, 5])
  })

  it("a run with an attempt in flight, or already chosen, is passed over; a full endpoint does not block the others", () => {
    const inFlight: InFlight = { total: 2, perSlot: new Map([["endpoint:1", 2]]), keys: new Set(["endpoint:1:run:a"]) }
    const plan = planClaims(
      [
        due(1, "endpoint:1", "endpoint:1:run:a"), // its run's previous event is in flight
        due(2, "endpoint:1", "endpoint:1:run:b"),
        due(3, "endpoint:1", "endpoint:1:run:b"), // a second of run b (a stale read): not with the first
        due(4, "endpoint:1", "endpoint:1:run:c"), // endpoint 1 is full: 2 in flight and delivery 2 make its 3
        due(5, "endpoint:2", "endpoint:2:run:a"), // the same run to another endpoint is another key
        due(6, "host:crm.example", "delivery:6")
      ],
      inFlight,
      { maxInFlight: 64, maxInFlightPerSlot: 3 }
    )
    expect(ids(plan)).toEqual([2, 5, 6])
  })

  it("stops at the limit in all", () => {
    const backlog = Array.from({ length: 10 }, (_, i) => due(i, `endpoint:${i}`, `endpoint:${i}:run:1`))
    expect(ids(planClaims(backlog, { total: 61, perSlot: new Map(), keys: new Set() }, { maxInFlight: 64, maxInFlightPerSlot: 16 })))
      .toEqual([
        0,
        1,
        2
      ])
    expect(planClaims(backlog, { total: 64, perSlot: new Map(), keys: new Set() }, { maxInFlight: 64, maxInFlightPerSlot: 16 })).toEqual([])
  })

  it("keys and slots: an endpoint's deliveries by endpoint and ordering key; a node's request by its host, ordered with nothing", () => {
    expect(orderingKeyOf({ id: 7, endpoint_id: 3, ordering_key: "run:12" })).toBe("endpoint:3:run:12")
    expect(orderingKeyOf({ id: 7, endpoint_id: null, ordering_key: "run:12" })).toBe("delivery:7")
    expect(orderingKeyOf({ id: 8, endpoint_id: null, ordering_key: "run:12" })).not.toBe(
      orderingKeyOf({ id: 7, endpoint_id: null, ordering_key: "run:12" })
    )
    expect(slotOf({ endpoint_id: 3, url: "https://a.example/x" })).toBe("endpoint:3")
    expect(slotOf({ endpoint_id: null, url: "https://crm.example:8443/calls?x=1" })).toBe("host:crm.example:8443")
    expect(slotOf({ endpoint_id: null, url: "not a url" })).toBe("host:")
  })

  it("property: within the limits, at most one per key and none of a key in flight, in order, and nothing left out that fits", () => {
    const slots = FastCheck.constantFrom("endpoint:1", "endpoint:2", "endpoint:3", "host:a")
    const keys = FastCheck.constantFrom("k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8")
    const input = FastCheck.record({
      due: FastCheck.array(FastCheck.record({ slot: slots, key: keys }), { maxLength: 60 }),
      perSlot: FastCheck.dictionary(slots, FastCheck.nat(6)),
      keysInFlight: FastCheck.uniqueArray(keys, { maxLength: 4 }),
      maxInFlight: FastCheck.integer({ min: 1, max: 30 }),
      maxInFlightPerSlot: FastCheck.integer({ min: 1, max: 8 })
    })
    FastCheck.assert(
      FastCheck.property(input, (i) => {
        const candidates = i.due.map((d, id) => due(id, d.slot, d.key))
        const perSlot = new Map(Object.entries(i.perSlot))
        const total = [...perSlot.values()].reduce((a, b) => a + b, 0)
        const inFlight: InFlight = { total, perSlot, keys: new Set(i.keysInFlight) }
        const limits = { maxInFlight: i.maxInFlight, maxInFlightPerSlot: i.maxInFlightPerSlot }
        const plan = planClaims(candidates, inFlight, limits)

        // In the outbox's order, each candidate at most once.
        expect(ids(plan)).toEqual([...new Set(ids(plan))].sort((a, b) => a - b))
        // Never more in flight than allowed (in all, and per slot beyond what was already there).
        expect(plan.length).toBeLessThanOrEqual(Math.max(0, i.maxInFlight - total))
        const planned = new Map<string, number>()
        for (const d of plan) planned.set(d.slot, (planned.get(d.slot) ?? 0) + 1)
        for (const [slot, n] of planned) expect((perSlot.get(slot) ?? 0) + n).toBeLessThanOrEqual(i.maxInFlightPerSlot)
        // Per-run ordering: one per key, and none of a key with an attempt in flight.
        expect(new Set(plan.map((d) => d.key)).size).toBe(plan.length)
        for (const d of plan) expect(i.keysInFlight).not.toContain(d.key)
        // Nothing that fitted was left out: each candidate passed over is blocked by a limit or its key.
        const chosen = new Set(ids(plan))
        const full = total + plan.length >= i.maxInFlight
        for (const d of candidates) {
          if (chosen.has(d.id)) continue
          const slotFull = (perSlot.get(d.slot) ?? 0) + (planned.get(d.slot) ?? 0) >= i.maxInFlightPerSlot
          const keyTaken = i.keysInFlight.includes(d.key) || plan.some((p) => p.key === d.key)
          expect(full || slotFull || keyTaken).toBe(true)
        }
      }),
      { numRuns: 500 }
    )
  })
})
