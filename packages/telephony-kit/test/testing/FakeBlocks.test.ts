/**
 * The fake-carrier building blocks on their own (every adapter's contract exercises them through its
 * fake): callbacks posted in order and replayed, a call's time stopping, callees by number.
 */
import { describe, expect, it } from "@effect/vitest"
import * as FakeCallbacks from "../../src/testing/FakeCallbacks.js"
import * as FakeCallees from "../../src/testing/FakeCallees.js"
import * as FakeJson from "../../src/testing/FakeJson.js"
import * as FakeTimeline from "../../src/testing/FakeTimeline.js"

const tick = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

describe("FakeCallbacks", () => {
  it("posts one at a time in order, records each delivery, replays them in order or reversed, forges the first", async () => {
    const seen: Array<string> = []
    let inFlight = 0
    const log = FakeCallbacks.make<string>(async (request, signing) => {
      inFlight++
      expect(inFlight).toBe(1)
      await tick(2)
      seen.push(`${request}:${signing}`)
      inFlight--
      return request === "b" ? 500 : 200
    })
    log.post("a")
    log.post("b")
    log.post("c", "wrong")
    let done = false
    log.afterPosted(() => void (done = true))
    await log.settled()
    expect(done).toBe(true)
    expect(seen).toEqual(["a:good", "b:good", "c:wrong"])
    expect(log.delivered().map((d) => [d.request, d.signing, d.status])).toEqual([["a", "good", 200], ["b", "good", 500], ["c", "wrong", 200]])
    // Only what the provider signed is replayed; a forgery takes the first of those.
    expect(await log.resend("reverse")).toEqual([500, 200])
    expect(await log.resend("same", (r) => r === "a")).toEqual([200])
    expect(await log.forge("missing")).toBe(200)
    expect(seen.slice(3)).toEqual(["b:good", "a:good", "a:good", "a:missing"])
  })

  it("a forgery of a call that posted nothing says so", async () => {
    await expect(FakeCallbacks.make<string>(async () => 200).forge("wrong")).rejects.toThrow("posted nothing")
  })
})

describe("FakeTimeline", () => {
  it("scales seconds, and stop ends every wait and cancels every timer", async () => {
    const timeline = FakeTimeline.make(10)
    expect(timeline.millis(3)).toBe(30)
    let fired = false
    timeline.schedule(0.5, () => void (fired = true))
    const waiting = timeline.after(3600)
    timeline.stop()
    await waiting
    await tick(20)
    expect(fired).toBe(false)
  })

  it("a latch settles once", async () => {
    const latch = FakeTimeline.latch<number>()
    latch.resolve(1)
    latch.resolve(2)
    expect(latch.isDone()).toBe(true)
    expect(await latch.promise).toBe(1)
  })
})

describe("FakeCallees", () => {
  it("one behaviour per call to a number, the last repeating; peeking does not count a call", () => {
    const callees = FakeCallees.make<string>()
    callees.behave("+1", ["busy", "human"])
    expect(callees.peek("+1")).toBe("busy")
    expect(callees.dial("+1")).toBe("busy")
    expect(callees.dial("+1")).toBe("human")
    expect(callees.dial("+1")).toBe("human")
    expect(callees.dial("+2")).toBeUndefined()
  })
})

describe("FakeJson", () => {
  it("reads paths of loose JSON without throwing", () => {
    const message = FakeJson.parse(`{"media":{"payload":"AA==","n":2},"list":[1]}`)
    expect(FakeJson.text(message, "media", "payload")).toBe("AA==")
    expect(FakeJson.number(message, "media", "n")).toBe(2)
    expect(FakeJson.text(message, "media", "n")).toBeUndefined()
    expect(FakeJson.at(message, "list", "0")).toBeUndefined()
    expect(FakeJson.parse("not json")).toBeUndefined()
  })
})
