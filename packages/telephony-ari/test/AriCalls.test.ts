import { describe, expect, it } from "@effect/vitest"
import { Duration, Either, Schema } from "effect"
import { Ari } from "../src/index.js"

const { Calls, Events, Inbound } = Ari

describe("hang-up causes", () => {
  it.each([
    [17, "busy"],
    [21, "busy"],
    [18, "no_answer"],
    [19, "no_answer"],
    [20, "no_answer"],
    [1, "failed"],
    [3, "failed"],
    [16, "failed"],
    [27, "failed"],
    [28, "failed"],
    [34, "failed"],
    [38, "failed"],
    [41, "failed"],
    [127, "failed"],
    [undefined, "failed"]
  ] as const)("an unanswered channel destroyed with cause %s is %s", (cause, outcome) => {
    expect(Calls.outcomeOf({ answered: false, canceledByUs: false, cause })).toBe(outcome)
  })

  it("an answered call completes whatever the cause; one we hung up before the answer is canceled", () => {
    for (const cause of [16, 17, 19, 34, undefined]) {
      expect(Calls.outcomeOf({ answered: true, canceledByUs: false, cause })).toBe("completed")
      expect(Calls.outcomeOf({ answered: true, canceledByUs: true, cause })).toBe("completed")
      expect(Calls.outcomeOf({ answered: false, canceledByUs: true, cause })).toBe("canceled")
    }
  })

  it("writes the cause for the run's log", () => {
    expect(Calls.causeText(17, "User busy")).toBe("17 User busy")
    expect(Calls.causeText(16, undefined)).toBe("16")
    expect(Calls.causeText(undefined, "x")).toBe(undefined)
  })
})

describe("dial strings", () => {
  it.each([
    ["PJSIP/{number}", "+14155550100", "PJSIP/+14155550100"],
    ["PJSIP/{digits}@trunk", "+14155550100", "PJSIP/14155550100@trunk"],
    ["Local/{digits}@from-internal", "+14155550100", "Local/14155550100@from-internal"],
    ["PJSIP/trunk/sip:{number}@carrier.example", "+14155550100", "PJSIP/trunk/sip:+14155550100@carrier.example"],
    ["PJSIP/{number}@trunk", "6001", "PJSIP/6001@trunk"],
    // An address naming a channel technology is dialed as it is.
    ["Local/{digits}@from-internal", "PJSIP/6001", "PJSIP/6001"]
  ])("%s dials %s as %s", (template, to, endpoint) => {
    expect(Calls.validDialTemplate(template)).toBe(true)
    expect(Calls.dialString(template, to)).toBe(endpoint)
  })

  it.each(["PJSIP/+1 415", "+1415,PJSIP/x", "a&b", "", "{number}"])("refuses to dial %j", (to) => {
    expect(Calls.dialString("PJSIP/{number}", to)).toBe(undefined)
  })

  it.each(["PJSIP/trunk", "{number}", "PJSIP {number}", "PJSIP/{number},x", "/{number}", "PJSIP/{numbr}"])("refuses the template %j", (template) => {
    expect(Calls.validDialTemplate(template)).toBe(false)
    const decoded = Schema.decodeUnknownEither(Ari.AriConfig)({ ari_endpoint: "http://pbx:8088", app_name: "u", app_password: "p", dial_string: template })
    expect(Either.isLeft(decoded)).toBe(true)
  })

  it("the configuration's dial string defaults to empty (PJSIP/{number}) and keeps a valid template", () => {
    const base = { ari_endpoint: "http://pbx:8088", app_name: "u", app_password: "p" }
    expect(Schema.decodeUnknownSync(Ari.AriConfig)(base).dial_string).toBe("")
    expect(Schema.decodeUnknownSync(Ari.AriConfig)({ ...base, dial_string: " Local/{digits}@from-internal " }).dial_string).toBe("Local/{digits}@from-internal")
  })
})

describe("appArgs, timestamps", () => {
  it("ties a channel to its attempt", () => {
    expect(Calls.appArgs(42)).toBe("attempt_id=42")
    expect(Calls.attemptOfArgs(["x", "attempt_id=42"])).toBe(42)
    expect(Calls.attemptOfArgs(["attempt_id=abc"])).toBe(undefined)
    expect(Calls.attemptOfArgs([])).toBe(undefined)
  })

  it("reads Asterisk's timestamps (offset without a colon)", () => {
    expect(Calls.timestampMillis("2025-01-01T12:00:00.123+0000", 0)).toBe(Date.UTC(2025, 0, 1, 12, 0, 0, 123))
    expect(Calls.timestampMillis("2025-01-01T13:00:00.000+0100", 0)).toBe(Date.UTC(2025, 0, 1, 12))
    expect(Calls.timestampMillis("garbage", 7)).toBe(7)
    expect(Calls.timestampMillis(undefined, 7)).toBe(7)
  })
})

describe("the events WebSocket", () => {
  it("names the application, without subscribing to the whole box", () => {
    const url = new URL(Events.eventsUrl("http://pbx:8088/ari", "agentline"))
    expect(`${url.protocol}//${url.host}${url.pathname}`).toBe("ws://pbx:8088/ari/events")
    expect(url.searchParams.get("app")).toBe("agentline")
    expect(url.searchParams.get("subscribeAll")).toBe("false")
    expect(Events.eventsUrl("https://pbx/ari", "a")).toMatch(/^wss:\/\/pbx\/ari\/events\?/)
  })

  it("reconnects with exponential backoff, at most 30 s", () => {
    expect([0, 1, 2, 3, 6, 20].map((n) => Duration.toMillis(Events.backoff(n)))).toEqual([500, 1000, 2000, 4000, 30_000, 30_000])
  })
})

describe("incoming calls", () => {
  const config = { ari_endpoint: "http://PBX:8088/", app_name: "agentline", app_password: "secret-password" }
  const event = {
    type: "StasisStart",
    args: [],
    channel: { id: "1700000000.1", state: "Ring", caller: { name: "", number: "+14155550123" }, dialplan: { context: "from-pstn", exten: "+14155550100", priority: 1 } }
  }

  it("signs the announcement with the ARI password; another key or none is refused", () => {
    const request = Inbound.request(config, event, config.app_password)
    expect(Inbound.verify(config, request)).toBe(true)
    expect(Inbound.verify(config, Inbound.request(config, event, "another"))).toBe(false)
    expect(Inbound.verify(config, { ...request, headers: {} })).toBe(false)
    expect(Inbound.verify({ app_password: "other" }, request)).toBe(false)
    expect(Inbound.verify(config, { ...request, rawBody: new TextEncoder().encode("{}") })).toBe(false)
  })

  it("routes by the account (endpoint and user) and the dialed extension", () => {
    expect(Inbound.parse(Inbound.request(config, event, config.app_password))).toEqual({
      accountId: "http://pbx:8088#agentline",
      to: "+14155550100",
      from: "+14155550123",
      providerCallId: "1700000000.1"
    })
    expect(() => Inbound.parse({ method: "POST", url: "x", headers: {}, rawBody: new TextEncoder().encode("nope") })).toThrow()
    expect(() => Inbound.parse(Inbound.request(config, { ...event, type: "ChannelDestroyed" }, "p"))).toThrow()
  })

  it("tells a dialplan channel from one we originated", () => {
    expect(Inbound.isIncoming(event, [])).toBe(true)
    expect(Inbound.isIncoming({ ...event, channel: { ...event.channel, state: "Up" } }, [])).toBe(false)
    expect(Inbound.isIncoming(event, ["attempt_id=4"])).toBe(false)
  })
})
