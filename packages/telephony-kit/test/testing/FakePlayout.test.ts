import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import * as FakePlayout from "../../src/testing/FakePlayout.js"

describe("FakePlayout", () => {
  beforeEach(() => void vi.useFakeTimers())
  afterEach(() => void vi.useRealTimers())

  const bytes = (n: number, value: number) => new Uint8Array(n).fill(value)

  it("plays a frame per tick; a mark is reached once the audio before it has played; clear drops the rest and returns its marks", () => {
    const reached: Array<string> = []
    const heard: Array<number> = []
    const playout = FakePlayout.make<string>({ frameBytes: 4, frameMillis: 20, reached: (m) => void reached.push(m), played: (c) => void heard.push(c.length) })
    playout.mark("at-once")
    playout.audio(bytes(6, 1))
    playout.mark("after-six")
    playout.audio(bytes(8, 2))
    playout.mark("after-fourteen")
    vi.advanceTimersByTime(20)
    expect(reached).toEqual(["at-once"])
    expect(playout.played()).toEqual(bytes(4, 1))
    vi.advanceTimersByTime(20)
    // The rest of the first chunk (2 bytes) and 2 of the next: the mark between them is reached in the same tick.
    expect(reached).toEqual(["at-once", "after-six"])
    expect(heard).toEqual([4, 2, 2])
    expect(playout.clear()).toEqual(["after-fourteen"])
    expect(playout.clears()).toBe(1)
    vi.advanceTimersByTime(100)
    expect(playout.isEmpty()).toBe(true)
    expect(playout.received()).toEqual(new Uint8Array([...bytes(6, 1), ...bytes(8, 2)]))
    expect(playout.played()).toEqual(new Uint8Array([...bytes(6, 1), ...bytes(2, 2)]))
    playout.stop()
  })

  it("runs beforeTick every tick and stops with stop", () => {
    let ticks = 0
    const playout = FakePlayout.make<string>({ frameBytes: 4, frameMillis: 20, reached: () => undefined, beforeTick: () => void ticks++ })
    vi.advanceTimersByTime(60)
    playout.stop()
    vi.advanceTimersByTime(60)
    expect(ticks).toBe(3)
  })
})
