import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { agentAudio, decide, defaultTiming, endLine, parseLine, startLine, startTurns, type Turns } from "../src/Callee.js"

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

  it("[interrupt] lines: said over the agent once it has talked interruptAfterMs of its turn, not before, and not into silence", () => {
    expect(parseLine("  [Interrupt]  Wait, stop. ")).toEqual({ text: "Wait, stop.", interrupts: true })
    expect(parseLine("Hello [interrupt]")).toEqual({ text: "Hello [interrupt]", interrupts: false })
    // The agent talks from 1,000 ms, a frame every 20 ms.
    let turns = startTurns(1, 0)
    for (let at = 1000; at <= 1000 + timing.interruptAfterMs - 20; at += 20) turns = agentAudio(turns, at)
    expect(decide(turns, 1000 + timing.interruptAfterMs - 20, timing, true)).toBe("listen")
    turns = agentAudio(turns, 1000 + timing.interruptAfterMs)
    expect(decide(turns, 1000 + timing.interruptAfterMs, timing, true)).toBe("speak")
    // The same moment for an ordinary line: the callee waits for the agent's gap.
    expect(decide(turns, 1000 + timing.interruptAfterMs, timing, false)).toBe("listen")
    // A gap as long as the turn gap starts a new run: the count starts again from the agent's next word.
    let later = agentAudio(agentAudio(startTurns(2, 0), 100), 500)
    later = agentAudio(later, 500 + timing.agentGapMs + 100)
    expect(later.agentTalkingSince).toBe(500 + timing.agentGapMs + 100)
    // Saying a line ends the agent's run for the callee; the agent's audio during the line (the rest of
    // what it had sent, or talk over the callee) is no answer: the callee does not hang up on it.
    const saying = startLine(turns)
    expect(saying.agentTalkingSince).toBeUndefined()
    const after = endLine(agentAudio(saying, 2000), 2500)
    expect(after.agentLastAudioAt).toBeUndefined()
    expect(decide(after, 2500 + timing.agentGapMs)).toBe("listen")
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
