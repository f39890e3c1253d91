import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { frameBytes } from "../../src/audio/AudioFormat.js"
import { makeFramer } from "../../src/audio/Frames.js"

describe("Framer", () => {
  it.prop(
    "cuts any byte stream into whole frames and a last partial of whole samples",
    [FastCheck.array(FastCheck.uint8Array({ maxLength: 700 }), { maxLength: 6 })],
    ([chunks]) => {
      const size = frameBytes({ encoding: "l16le", sampleRate: 16000 }, 20)
      expect(size).toBe(640)
      const framer = makeFramer(size, 2)
      const frames = chunks.flatMap((chunk) => [...framer.push(chunk)])
      const rest = framer.flush()
      const total = chunks.reduce((n, c) => n + c.length, 0)
      expect(frames.every((f) => f.length === size)).toBe(true)
      expect(frames.length).toBe(Math.floor(total / size))
      expect(rest?.length ?? 0).toBe((total % size) - ((total % size) % 2))
      expect([...frames.flatMap((f) => [...f]), ...(rest ?? [])]).toEqual(chunks.flatMap((c) => [...c]).slice(0, frames.length * size + (rest?.length ?? 0)))
    }
  )
})
