import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { Twilio } from "../src/index.js"

const param = FastCheck.tuple(FastCheck.string({ minLength: 1, maxLength: 12 }), FastCheck.string({ maxLength: 20 }))
const params = FastCheck.array(param, { maxLength: 12 })
const url = FastCheck.webUrl({ withQueryParameters: true })

describe("X-Twilio-Signature (properties)", () => {
  it("verifies whatever order the parameters arrive in, and only with the same token, URL and values", () =>
    FastCheck.assert(FastCheck.property(url, params, FastCheck.string({ minLength: 1 }), (u, p, token) => {
      const signature = Twilio.Signature.sign(token, u, p)
      expect(Twilio.Signature.isValid(token, signature, u, [...p].reverse())).toBe(true)
      expect(Twilio.Signature.isValid(`${token}x`, signature, u, p)).toBe(false)
      expect(Twilio.Signature.isValid(token, signature, `${u}x`, p)).toBe(false)
      if (p.length > 0) {
        const [name, value] = p[0]!
        expect(Twilio.Signature.isValid(token, signature, u, [[name, `${value}x`], ...p.slice(1)])).toBe(false)
      }
    })))

  it("a form body signs like its parameters (URL-encoding is undone first)", () =>
    FastCheck.assert(FastCheck.property(params, (p) => {
      const body = new TextEncoder().encode(new URLSearchParams(p.map(([k, v]) => [k, v])).toString())
      expect(Twilio.Signature.signedData("u", Twilio.Signature.formParams(body))).toBe(Twilio.Signature.signedData("u", p))
    })))
})

describe("Twilio statuses (properties)", () => {
  const statuses = ["queued", "initiated", "ringing", "in-progress", "completed", "busy", "no-answer", "failed", "canceled"]
  it("every status Twilio has is one event, final ones exactly one `ended`; anything else is refused", () =>
    FastCheck.assert(FastCheck.property(
      FastCheck.oneof(FastCheck.constantFrom(...statuses), FastCheck.string()),
      FastCheck.option(FastCheck.constantFrom("human", "machine_start", "machine_end_beep", "fax", "unknown"), { nil: undefined }),
      FastCheck.nat(7200),
      (status, answeredBy, duration) => {
        const parsed = Twilio.Callbacks.parseStatus(
          [["CallSid", "CA1"], ["CallStatus", status], ["CallDuration", String(duration)], ...(answeredBy !== undefined ? [["AnsweredBy", answeredBy] as const] : [])],
          0
        )
        if (!statuses.includes(status)) {
          expect(parsed._tag).toBe("Invalid")
          return
        }
        expect(parsed._tag).toBe("Events")
        const events = (parsed as { readonly events: ReadonlyArray<any> }).events
        expect(events.length).toBe(1)
        const final = Twilio.Callbacks.outcomeOf(status, answeredBy) !== undefined
        expect(events[0].type === "ended").toBe(final)
        if (final) {
          expect(events[0].durationSeconds).toBe(duration)
          if (status === "completed" && answeredBy?.startsWith("machine")) expect(events[0].outcome).toBe("voicemail")
        }
      }
    )))
})
