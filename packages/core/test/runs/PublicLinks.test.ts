import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import * as PublicLinks from "../../src/runs/PublicLinks.js"

const settings = { secret: Redacted.make("s3cret"), ttlSeconds: 600 }

describe("PublicLinks", () => {
  it("a signed token verifies until it expires", () => {
    const now = Date.UTC(2026, 10, 22, 12)
    const token = PublicLinks.sign(settings, 42, now)
    expect(PublicLinks.verify(settings, token, now)).toBe(42)
    expect(PublicLinks.verify(settings, token, now + 599_000)).toBe(42)
    expect(PublicLinks.verify(settings, token, now + 600_000)).toBeUndefined()
  })

  it("a token for another run, another expiry or another secret does not verify", () => {
    const now = 1_000_000
    const token = PublicLinks.sign(settings, 42, now)
    const [run, expires, mac] = token.split(".")
    expect(PublicLinks.verify(settings, `43.${expires}.${mac}`, now)).toBeUndefined()
    expect(PublicLinks.verify(settings, `${run}.${Number(expires) + 1000}.${mac}`, now)).toBeUndefined()
    expect(PublicLinks.verify({ ...settings, secret: Redacted.make("other") }, token, now)).toBeUndefined()
    expect(PublicLinks.verify(settings, "garbage", now)).toBeUndefined()
  })

  it("only the signed form verifies: no extra segments, spaces or other characters around it", () => {
    const now = 1_000_000
    const token = PublicLinks.sign(settings, 42, now)
    expect(PublicLinks.verify(settings, token, now)).toBe(42)
    for (
      const altered of [`${token}.extra`, `${token}.`, `${token}..x`, ` ${token}`, `${token} `, `${token}\n`, `+${token}`, `${token}=`]
    ) {
      expect(PublicLinks.verify(settings, altered, now), altered).toBeUndefined()
    }
  })
})
