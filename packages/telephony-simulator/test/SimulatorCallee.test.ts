import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { agentAudio, decide, defaultTiming, endLine, startLine, startTurns, type Turns } from "../src/SimulatorCallee.js"

const timing = defaultTiming

describe("the talking callee's turns", () => {
  it("listens while the agent greets, speaks once the agent has been quiet for the gap", () => {
    let turns = startTurns(2, 0)
    expect(decide(turns, 100)).toBe("listen")
    turns = agentAudio(turns, 500)
    turns = agentAudio(turns, 2000)
    expect(decide(turns, 2000 + timing.agentGapMs - 1)).toBe("listen")
    expect(decide(turns, 2000 + timing.agentGapMs)).toBe("speak")
  })

  it("does not speak over itself, and waits for the agent's reply to each line", () => {
    let turns = startLine(agentAudio(startTurns(2, 0), 1000))
    expect(decide(turns, 10_000)).toBe("listen")
    turns = endLine(turns, 3000)
    // The agent's audio before the line does not count as an answer to it.
    expect(decide(turns, 3000 + timing.agentGapMs)).toBe("listen")
    turns = agentAudio(turns, 4000)
    expect(decide(turns, 4000 + timing.agentGapMs)).toBe("speak")
  })

  it("hangs up once the agent has answered the last line", () => {
    let turns = endLine(startLine(agentAudio(startTurns(1, 0), 500)), 2000)
    expect(decide(turns, 2500)).toBe("listen")
    turns = agentAudio(turns, 3000)
    expect(decide(turns, 3000 + timing.agentGapMs)).toBe("hang-up")
  })

  it("speaks first to an agent that says nothing, and again to one that does not answer; hangs up on silence after the last line", () => {
    const silent = startTurns(2, 0)
    expect(decide(silent, timing.firstLineAfterMs - 1)).toBe("listen")
    expect(decide(silent, timing.firstLineAfterMs)).toBe("speak")
    const unanswered = endLine(startLine(agentAudio(startTurns(2, 0), 100)), 1000)
    expect(decide(unanswered, 1000 + timing.answerWaitMs - 1)).toBe("listen")
    expect(decide(unanswered, 1000 + timing.answerWaitMs)).toBe("speak")
    const done = endLine(startLine(agentAudio(startTurns(1, 0), 100)), 1000)
    expect(decide(done, 1000 + timing.answerWaitMs)).toBe("hang-up")
  })

  it("property: never speaks while speaking or with no line left; says each line at most once; hangs up only when all are said", () => {
    const step = FastCheck.oneof(
      FastCheck.record({ kind: FastCheck.constant("agent" as const), after: FastCheck.integer({ min: 0, max: 3000 }) }),
      FastCheck.record({ kind: FastCheck.constant("tick" as const), after: FastCheck.integer({ min: 0, max: 20_000 }) })
    )
    FastCheck.assert(FastCheck.property(FastCheck.integer({ min: 0, max: 5 }), FastCheck.array(step, { maxLength: 60 }), (lines, steps) => {
      let turns: Turns = startTurns(lines, 0)
      let now = 0
      let said = 0
      for (const s of steps) {
        now += s.after
        if (s.kind === "agent") {
          turns = agentAudio(turns, now)
          continue
        }
        const decision = decide(turns, now)
        if (turns.speaking) expect(decision).toBe("listen")
        if (decision === "speak") {
          expect(turns.linesLeft).toBeGreaterThan(0)
          turns = endLine(startLine(turns), now)
          said++
        }
        if (decision === "hang-up") {
          expect(turns.linesLeft).toBe(0)
          break
        }
      }
      expect(said).toBeLessThanOrEqual(lines)
    }))
  })
})
