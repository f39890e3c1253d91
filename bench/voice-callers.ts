/**
 * The simulated callers of `npm run bench:voice`, in their own process (forked by voice.bench.ts):
 * the fake Twilio of `@agentline/telephony-twilio/testing` (its REST API, status callbacks and media
 * WebSockets), whose callees answer the server's calls and talk over the media stream: each sends
 * 20 ms µ-law frames on the wall clock (speech, then silence, as a phone line does), waits for the
 * agent's answer, and times the agent's frames as they arrive over the socket.
 *
 * Messages (IPC): → `{ type: "ready", twilioUrl, ... }`; ← `{ type: "own" | "behave", number }` (a caller id of
 * the account; a number that answers and talks);
 * ← `{ type: "run", calls, turns, speech (µ-law, base64), measureFromSpeechEnd }` → `{ type: "result", ... }`.
 */
import * as FakeTwilio from "@agentline/telephony-twilio/testing/FakeTwilio"

const ACCOUNT = { sid: "AC00000000000000000000000000000bench", token: "bench-auth-token" }
const FRAME_BYTES = 160
const SILENCE = new Uint8Array(FRAME_BYTES).fill(0xff) // µ-law digital silence
const STOP_MS = 300

export interface RunRequest {
  readonly type: "run"
  readonly calls: number
  readonly turns: number
  readonly speech: string
  readonly measureFromSpeechEnd: boolean
}

/** What this process sends. */
export type ChildMessage =
  | { readonly type: "ready"; readonly twilioUrl: string; readonly accountSid: string; readonly authToken: string }
  | RunResult

export type Message =
  | RunRequest
  | { readonly type: "own" | "behave"; readonly number: string }
  | { readonly type: "close" }

export interface RunResult {
  readonly type: "result"
  readonly overheads: ReadonlyArray<number>
  readonly lateness: ReadonlyArray<number>
  readonly peakConnected: number
  readonly connected: number
  readonly cpuMicros: number
}

interface Caller {
  readonly leg: FakeTwilio.MediaLeg
  readonly call: FakeTwilio.FakeCall
  state: "greeting" | "speaking" | "waiting" | "done"
  turn: number
  /** Speech frames sent this turn. */
  sent: number
  utteranceStart: number | undefined
  framesInUtterance: number
  lastArrival: number
  decisionAt: number | undefined
  spokeEnd: number
  answered: number
  answeredBefore: number
}

const run = async (fake: FakeTwilio.FakeTwilio, request: RunRequest, handled: Set<string>): Promise<RunResult> => {
  const speech = new Uint8Array(Buffer.from(request.speech, "base64"))
  const overheads: Array<number> = []
  const lateness: Array<number> = []
  const callers: Array<Caller> = []
  let connected = 0
  let open = 0
  let peakConnected = 0
  const cpuBefore = process.cpuUsage()
  const adopt = (call: FakeTwilio.FakeCall, leg: FakeTwilio.MediaLeg) => {
    const caller: Caller = {
      leg, call, state: "greeting", turn: 0, sent: 0, utteranceStart: undefined, framesInUtterance: 0,
      lastArrival: 0, decisionAt: undefined, spokeEnd: 0, answered: 0, answeredBefore: 0
    }
    leg.listen(() => {
      const now = performance.now()
      if (caller.utteranceStart === undefined || now - caller.lastArrival > 250) {
        caller.utteranceStart = now
        caller.framesInUtterance = 0
        if (caller.decisionAt !== undefined) {
          overheads.push(now - caller.decisionAt)
          caller.answered++
        }
        caller.decisionAt = undefined
      }
      lateness.push(Math.max(0, now - (caller.utteranceStart + caller.framesInUtterance * 20)))
      caller.framesInUtterance++
      caller.lastArrival = now
    })
    callers.push(caller)
    connected++
    open++
    peakConnected = Math.max(peakConnected, open)
    void leg.closed.then(() => open--)
  }
  /** One frame of every caller, every 20 ms of the wall clock (frames missed by a late timer are sent at once). */
  const tick = (now: number) => {
    for (const c of callers) {
      if (c.state === "done") continue
      if (!c.leg.isOpen()) {
        c.state = "done"
        continue
      }
      switch (c.state) {
        case "greeting":
          c.leg.speak(SILENCE)
          if (c.lastArrival > 0 && now - c.lastArrival >= STOP_MS) c.state = "speaking"
          break
        case "speaking": {
          const at = c.sent * FRAME_BYTES
          if (at < speech.length) {
            c.leg.speak(speech.subarray(at, at + FRAME_BYTES))
            c.sent++
            break
          }
          // The last frame has lasted its 20 ms: the caller stopped speaking now.
          c.spokeEnd = now
          c.decisionAt = now + (request.measureFromSpeechEnd ? 0 : STOP_MS)
          c.answeredBefore = c.answered
          c.state = "waiting"
          c.leg.speak(SILENCE)
          break
        }
        case "waiting": {
          c.leg.speak(SILENCE)
          const answeredNow = c.answered > c.answeredBefore && now - c.lastArrival >= STOP_MS
          if (answeredNow || now - c.spokeEnd > 10_000) {
            c.decisionAt = undefined
            c.turn++
            c.sent = 0
            if (c.turn < request.turns) c.state = "speaking"
            else {
              c.state = "done"
              c.call.end("completed")
            }
          }
          break
        }
      }
    }
  }
  const started = performance.now()
  let ticks = 0
  return new Promise((resolve) => {
    const loop = () => {
      const now = performance.now()
      // New calls whose media stream connected.
      for (const call of fake.calls()) {
        if (handled.has(call.sid) || call.media === undefined) continue
        handled.add(call.sid)
        adopt(call, call.media)
      }
      const due = Math.floor((now - started) / 20)
      while (ticks <= due) {
        tick(now)
        ticks++
      }
      const finished = connected >= request.calls && callers.every((c) => c.state === "done")
      if (finished || now - started > 60_000 + request.turns * 15_000) {
        for (const c of callers) if (c.state !== "done") c.call.end("completed")
        const cpu = process.cpuUsage(cpuBefore)
        return resolve({ type: "result", overheads, lateness, peakConnected, connected, cpuMicros: cpu.user + cpu.system })
      }
      setTimeout(loop, Math.max(1, started + ticks * 20 - performance.now()))
    }
    loop()
  })
}

const main = async () => {
  const fake = await FakeTwilio.start({ accounts: [ACCOUNT] })
  const handled = new Set<string>()
  process.on("message", (message: Message) => {
    if (message.type === "own") {
      fake.addNumber(ACCOUNT.sid, message.number)
    } else if (message.type === "behave") {
      fake.behave(message.number, { answer: "human", ringSeconds: 0.1, talkSeconds: 3600 })
    } else if (message.type === "run") {
      void run(fake, message, handled).then((result) => process.send!(result satisfies ChildMessage))
    } else if (message.type === "close") {
      void fake.close().then(() => process.exit(0))
    }
  })
  process.send!({ type: "ready", twilioUrl: fake.url, accountSid: ACCOUNT.sid, authToken: ACCOUNT.token } satisfies ChildMessage)
}

void main()
