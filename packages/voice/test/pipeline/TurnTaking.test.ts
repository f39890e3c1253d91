import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  initialTurnState,
  stepTurnTaking,
  type TurnDecision,
  type TurnEvent,
  type TurnState
} from "../../src/pipeline/TurnTaking.js"

const run = (events: ReadonlyArray<TurnEvent>, state: TurnState = initialTurnState({ detectVoicemail: false })) => {
  const decisions: Array<TurnDecision> = []
  for (const event of events) {
    const [next, out] = stepTurnTaking(state, event)
    state = next
    decisions.push(...out)
  }
  return { state, decisions }
}
const tags = (decisions: ReadonlyArray<TurnDecision>) => decisions.map((d) => d._tag)

const started = (atMs: number, interruptible = true): TurnEvent => ({ _tag: "SpeechStarted", atMs, decidedAtMs: atMs + 80, interruptible })
const stopped = (atMs: number): TurnEvent => ({ _tag: "SpeechStopped", atMs })
const heard = (text: string, atMs: number): TurnEvent => ({ _tag: "Heard", text, atMs })
const done: TurnEvent = { _tag: "AgentDone", ending: undefined }

describe("TurnTaking", () => {
  it("a turn: the opening ends, the idle timer runs; the caller speaks, stops, is heard: one reply with the turn's times", () => {
    const { decisions, state } = run([done, started(1000), stopped(2500), heard("Hello there", 2600)])
    expect(decisions).toEqual([
      { _tag: "StartIdleTimer" },
      { _tag: "StopIdleTimer" },
      { _tag: "Respond", text: "Hello there", startMs: 1000, endMs: 2500, heardAtMs: 2600, checkVoicemail: false }
    ])
    expect(state).toMatchObject({ agentSpeaking: true, heard: [], idleTimer: false })
  })

  it("words heard before the end of speech wait for it; words heard while the agent replies are answered after it", () => {
    const first = run([done, started(0), heard("one", 500)])
    expect(tags(first.decisions)).toEqual(["StartIdleTimer", "StopIdleTimer"])
    const second = run([stopped(900), started(2000, false), heard("two", 2500), stopped(2600)], first.state)
    expect(second.decisions.filter((d) => d._tag === "Respond").map((d) => d._tag === "Respond" && d.text)).toEqual(["one"])
    const third = run([done], second.state)
    expect(third.decisions).toEqual([{ _tag: "Respond", text: "two", startMs: 2000, endMs: 2600, heardAtMs: 2500, checkVoicemail: false }])
  })

  it("barge-in: caller speech over an interruptible reply cuts it; over a non-interruptible one it does not", () => {
    expect(run([started(300, true)]).decisions).toEqual([{ _tag: "BargeIn", speechStartedAtMs: 300, decidedAtMs: 380 }])
    expect(run([started(300, false)]).decisions).toEqual([])
    // After a barge-in the cut reply sends no AgentDone; the caller's turn is answered at once.
    const after = run([started(300, true), heard("wait", 900), stopped(1000)])
    expect(tags(after.decisions)).toEqual(["BargeIn", "Respond"])
    // Nothing to cut while the agent is silent.
    expect(tags(run([done, started(5000, true)]).decisions)).toEqual(["StartIdleTimer", "StopIdleTimer"])
  })

  it("voicemail detection: the first utterance arms the long-speech timer and its words are checked; later ones not", () => {
    const s0 = initialTurnState({ detectVoicemail: true })
    const first = run([started(0, false), heard("Hi, you reached Ada", 3000), stopped(3100)], s0)
    expect(first.decisions).toEqual([
      { _tag: "StartLongSpeechTimer" },
      { _tag: "StopLongSpeechTimer" }
    ])
    const answered = run([done], first.state)
    expect(answered.decisions).toEqual([{ _tag: "Respond", text: "Hi, you reached Ada", startMs: 0, endMs: 3100, heardAtMs: 3000, checkVoicemail: true }])
    const later = run([done, started(9000), heard("yes", 9500), stopped(9600)], answered.state)
    expect(later.decisions.some((d) => d._tag === "StartLongSpeechTimer")).toBe(false)
    expect(later.decisions.find((d) => d._tag === "Respond")).toMatchObject({ checkVoicemail: false })
  })

  it("every way a call ends, with its reason; nothing happens after the end", () => {
    const cases: ReadonlyArray<readonly [TurnEvent, TurnDecision]> = [
      [{ _tag: "CallerGone" }, { _tag: "End", reason: "user_hangup", voicemail: undefined, failure: undefined }],
      [{ _tag: "TimeUp", reason: "max_duration_exceeded" }, { _tag: "End", reason: "max_duration_exceeded", voicemail: undefined, failure: undefined }],
      [{ _tag: "Voicemail", reason: "long_speech" }, { _tag: "End", reason: "voicemail_detected", voicemail: "long_speech", failure: undefined }],
      [{ _tag: "Failed", reason: "no language model" }, { _tag: "End", reason: "pipeline_error", voicemail: undefined, failure: "no language model" }],
      [{ _tag: "AgentDone", ending: "end_call_tool" }, { _tag: "End", reason: "end_call_tool", voicemail: undefined, failure: undefined }]
    ]
    for (const [event, decision] of cases) {
      const { decisions, state } = run([event])
      expect(decisions).toEqual([decision])
      expect(state.ended).toBe(true)
      expect(run([started(1), heard("x", 2), stopped(3), done, { _tag: "CallerGone" }], state).decisions).toEqual([])
    }
  })

  it("exhaustively over the small states: each event's rule holds", () => {
    const bools = [false, true]
    const events: ReadonlyArray<TurnEvent> = [started(10, true), started(10, false), stopped(20), heard("w", 30), done]
    for (const callerSpeaking of bools) {
      for (const agentSpeaking of bools) {
        for (const hasHeard of bools) {
          for (const detectingVoicemail of bools) {
            for (const longSpeechTimer of bools) {
              // Unreachable: words waiting while nobody speaks would have been answered.
              if (hasHeard && !callerSpeaking && !agentSpeaking) continue
              const idleTimer = !callerSpeaking && !agentSpeaking
              const state: TurnState = {
                ...initialTurnState({ detectVoicemail: detectingVoicemail }),
                callerSpeaking,
                agentSpeaking,
                heard: hasHeard ? [{ text: "earlier", atMs: 5 }] : [],
                longSpeechTimer: longSpeechTimer && detectingVoicemail,
                idleTimer
              }
              for (const event of events) {
                const [next, decisions] = stepTurnTaking(state, event)
                const responded = decisions.some((d) => d._tag === "Respond")
                // A reply starts exactly when the caller is silent, words wait, and no reply is in flight.
                const wordsWait = hasHeard || event._tag === "Heard"
                const agentFree = !agentSpeaking || event._tag === "AgentDone"
                expect(responded).toBe(!next.callerSpeaking && wordsWait && agentFree)
                if (responded) expect(next).toMatchObject({ agentSpeaking: true, heard: [] })
                // A barge-in only cuts a reply in flight that may be cut.
                const bargedIn = decisions.some((d) => d._tag === "BargeIn")
                expect(bargedIn).toBe(event._tag === "SpeechStarted" && event.interruptible && agentSpeaking)
                // The idle timer runs only while nobody speaks.
                if (next.idleTimer) expect(next.callerSpeaking || next.agentSpeaking).toBe(false)
                if (event._tag === "SpeechStarted") expect(next.callerSpeaking).toBe(true)
                if (event._tag === "SpeechStopped") expect(next.callerSpeaking).toBe(false)
              }
            }
          }
        }
      }
    }
  })

  /** Events a call can produce: AgentDone only while a reply is in flight (the session sends it then). */
  const event = FastCheck.oneof(
    FastCheck.record({ _tag: FastCheck.constant("SpeechStarted" as const), atMs: FastCheck.nat(100_000), decidedAtMs: FastCheck.nat(100_000), interruptible: FastCheck.boolean() }),
    FastCheck.record({ _tag: FastCheck.constant("SpeechStopped" as const), atMs: FastCheck.nat(100_000) }),
    FastCheck.record({ _tag: FastCheck.constant("Heard" as const), text: FastCheck.stringMatching(/^[a-z]{1,6}$/), atMs: FastCheck.nat(100_000) }),
    FastCheck.constant({ _tag: "AgentDone" as const, ending: undefined }),
    FastCheck.constant({ _tag: "AgentDone" as const, ending: "end_call_tool" }),
    FastCheck.constant({ _tag: "CallerGone" as const }),
    FastCheck.constant({ _tag: "Failed" as const, reason: "tts" })
  )

  it.prop("properties over any call: one reply at a time, every word answered once and in order, timers balanced, nothing after the end", [
    FastCheck.boolean(),
    FastCheck.array(event, { maxLength: 60 })
  ], ([detectVoicemail, events]) => {
    let state = initialTurnState({ detectVoicemail })
    let inFlight = true
    let idle = false
    let longSpeech = false
    let ends = 0
    const heardWords: Array<string> = []
    const answered: Array<string> = []
    let checks = 0
    for (const e of events) {
      if (e._tag === "AgentDone" && !inFlight) continue
      const wasEnded = state.ended
      if (e._tag === "Heard" && !wasEnded) heardWords.push(e.text)
      const [next, decisions] = stepTurnTaking(state, e)
      if (wasEnded) expect(decisions).toEqual([])
      if (e._tag === "AgentDone") inFlight = false
      for (const d of decisions) {
        switch (d._tag) {
          case "Respond":
            expect(inFlight).toBe(false)
            expect(next.callerSpeaking).toBe(false)
            inFlight = true
            answered.push(...d.text.split(" "))
            if (d.checkVoicemail) checks++
            break
          case "BargeIn":
            expect(inFlight).toBe(true)
            inFlight = false
            break
          case "StartIdleTimer":
            expect(idle).toBe(false)
            idle = true
            break
          case "StopIdleTimer":
            expect(idle).toBe(true)
            idle = false
            break
          case "StartLongSpeechTimer":
            expect(longSpeech).toBe(false)
            longSpeech = true
            break
          case "StopLongSpeechTimer":
            expect(longSpeech).toBe(true)
            longSpeech = false
            break
          case "End":
            ends++
            inFlight = false
            idle = false
            longSpeech = false
        }
      }
      expect(next.agentSpeaking).toBe(inFlight)
      expect(next.idleTimer).toBe(idle)
      if (idle) expect(next.callerSpeaking || next.agentSpeaking).toBe(false)
      state = next
    }
    expect(ends).toBeLessThanOrEqual(1)
    expect(checks).toBeLessThanOrEqual(detectVoicemail ? 1 : 0)
    // What was answered is what was heard, in order; the rest is still waiting (or the call ended).
    expect(heardWords.slice(0, answered.length)).toEqual(answered)
    expect([...answered, ...state.heard.map((h) => h.text)]).toEqual(heardWords)
  })
})
