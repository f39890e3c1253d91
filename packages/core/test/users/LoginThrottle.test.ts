import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  type Attempt,
  addressKey,
  begin,
  defaultPolicy,
  emptyState,
  succeeded,
  type ThrottlePolicy,
  type ThrottleState
} from "../../src/users/LoginThrottle.js"

const T0 = Date.UTC(2026, 0, 1)
const policy: ThrottlePolicy = { windowMillis: 60_000, maxFailuresPerAccount: 3, maxFailuresPerAddress: 5 }

/** Starts every attempt in order; the retry-after of each. */
const run = (attempts: ReadonlyArray<Attempt>, state: ThrottleState = emptyState, p = policy) => {
  const waits: Array<number> = []
  for (const attempt of attempts) {
    const started = begin(state, attempt, p)
    waits.push(started.retryAfterMillis)
    state = started.state
  }
  return { waits, state }
}

const attempt = (account: string, address: string, at = T0): Attempt => ({ account, address, at })

describe("defaultPolicy", () => {
  it("is the documented one: 10 per account, 100 per address, 15 minutes", () => {
    expect(defaultPolicy).toEqual({ windowMillis: 900_000, maxFailuresPerAccount: 10, maxFailuresPerAddress: 100 })
  })
})

describe("begin", () => {
  it("counts an attempt when it starts: the account's limit refuses the next one before any outcome", () => {
    const { waits } = run(Array.from({ length: 5 }, () => attempt("a@x.test", "10.0.0.1")))
    expect(waits).toEqual([0, 0, 0, 60_000, 60_000])
  })

  it("refused attempts are not counted: the block ends a window after the counted ones", () => {
    const first = run(Array.from({ length: 3 }, (_, i) => attempt("a@x.test", "10.0.0.1", T0 + i * 1000)))
    const refused = run([attempt("a@x.test", "10.0.0.1", T0 + 30_000)], first.state)
    expect(refused.waits).toEqual([30_000])
    expect(refused.state).toBe(first.state)
    // the oldest counted attempt leaves the window at T0 + 60 s: one more is allowed, not two
    const later = run([attempt("a@x.test", "10.0.0.1", T0 + 60_000), attempt("a@x.test", "10.0.0.1", T0 + 60_000)], first.state)
    expect(later.waits).toEqual([0, 1000])
  })

  it("the address limit spans accounts; other addresses and accounts are unaffected", () => {
    const { state, waits } = run(Array.from({ length: 5 }, (_, i) => attempt(`u${i}@x.test`, "10.0.0.1")))
    expect(waits).toEqual([0, 0, 0, 0, 0])
    expect(begin(state, attempt("other@x.test", "10.0.0.1"), policy).retryAfterMillis).toBe(60_000)
    expect(begin(state, attempt("other@x.test", "10.0.0.2"), policy).retryAfterMillis).toBe(0)
    expect(begin(state, attempt("u0@x.test", "10.0.0.2"), policy).retryAfterMillis).toBe(0)
  })

  it("never lets more attempts through per window than the limits, whatever the order (property)", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(
          FastCheck.record({
            account: FastCheck.constantFrom("a", "b", "c"),
            address: FastCheck.constantFrom("10.0.0.1", "10.0.0.2"),
            step: FastCheck.integer({ min: 0, max: 20_000 })
          }),
          { maxLength: 80 }
        ),
        (steps) => {
          let at = T0
          let state: ThrottleState = emptyState
          const admitted: Array<Attempt> = []
          for (const step of steps) {
            at += step.step
            const started = begin(state, attempt(step.account, step.address, at), policy)
            state = started.state
            if (started.retryAfterMillis === 0) admitted.push(attempt(step.account, step.address, at))
          }
          for (const a of admitted) {
            const inWindow = admitted.filter((b) => b.at > a.at - policy.windowMillis && b.at <= a.at)
            expect(inWindow.filter((b) => b.account === a.account).length).toBeLessThanOrEqual(policy.maxFailuresPerAccount)
            expect(inWindow.filter((b) => b.address === a.address).length).toBeLessThanOrEqual(policy.maxFailuresPerAddress)
          }
        }
      )
    )
  })

  it("an unknown address is not counted: only the account limit applies", () => {
    const { state, waits } = run(Array.from({ length: 8 }, (_, i) => attempt(`u${i}@x.test`, "unknown")))
    expect(waits).toEqual(Array.from({ length: 8 }, () => 0))
    expect([...state.keys()].every((key) => key.startsWith("account:"))).toBe(true)
    expect(run(Array.from({ length: 4 }, () => attempt("a@x.test", "unknown"))).waits).toEqual([0, 0, 0, 60_000])
  })
})

describe("succeeded", () => {
  it("clears the account's failures and takes only this attempt back from the address", () => {
    const failures = run([attempt("a@x.test", "10.0.0.1", T0), attempt("a@x.test", "10.0.0.1", T0 + 1), attempt("b@x.test", "10.0.0.1", T0 + 2)])
    const right = attempt("a@x.test", "10.0.0.1", T0 + 3)
    const started = begin(failures.state, right, policy)
    expect(started.retryAfterMillis).toBe(0)
    const after = succeeded(started.state, right)
    expect(after.get("account:a@x.test")).toBeUndefined()
    expect(after.get("account:b@x.test")).toEqual([T0 + 2])
    expect(after.get("address:10.0.0.1")).toEqual([T0, T0 + 1, T0 + 2])
  })

  it("an account that only ever succeeds leaves nothing behind", () => {
    const right = attempt("a@x.test", "10.0.0.1")
    expect(succeeded(begin(emptyState, right, policy).state, right).size).toBe(0)
  })
})

describe("addressKey", () => {
  it.each([
    ["10.1.2.3", "10.1.2.3"],
    ["::ffff:10.1.2.3", "10.1.2.3"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:aaaa::1", "2001:db8:1:2::/64"],
    ["2001:DB8:1:2::", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["[2001:db8:1:2::9]", "2001:db8:1:2::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["unknown", "unknown"]
  ])("%s → %s", (address, key) => {
    expect(addressKey(address)).toBe(key)
  })

  it("every address of one /64 shares a key (property)", () => {
    const group = FastCheck.integer({ min: 0, max: 0xffff }).map((n) => n.toString(16))
    FastCheck.assert(
      FastCheck.property(FastCheck.array(group, { minLength: 8, maxLength: 8 }), FastCheck.array(group, { minLength: 4, maxLength: 4 }), (a, tail) => {
        const other = [...a.slice(0, 4), ...tail]
        expect(addressKey(a.join(":"))).toBe(addressKey(other.join(":")))
      })
    )
  })
})
