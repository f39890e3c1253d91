/**
 * Turn-taking and barge-in as a pure state machine: what happened on the call comes in as events, what
 * the session must do goes out as decisions. Nothing here waits, forks or reads a clock; the session
 * (`Session.ts`) runs the decisions (starts the agent's reply, interrupts it, arms timers, ends the call)
 * and feeds back the events they cause. Tested exhaustively and with properties (`TurnTaking.test.ts`).
 *
 * - The caller's words (`Heard`) are answered once the caller has stopped speaking (`SpeechStopped`)
 *   and the agent is not already replying: one reply at a time, every heard word answered once.
 * - Caller speech while an interruptible reply plays is a barge-in: the reply is dropped.
 * - With voicemail detection, a long unbroken first utterance is an answering machine (a timer the
 *   session arms), and the first words are checked by the model (`checkVoicemail` on the first reply).
 * - The idle timer runs only while nobody speaks and the agent waits for the caller.
 */

export type VoicemailReason = "long_speech" | "language_model"

export type TurnEvent =
  /** `atMs`: where the voice began (call time); `decidedAtMs`: when the detector decided it was speech. */
  | {
    readonly _tag: "SpeechStarted"
    readonly atMs: number
    readonly decidedAtMs: number
    /** Whether the agent's reply in flight may be cut (the node allows it and the call is not closing). */
    readonly interruptible: boolean
  }
  | { readonly _tag: "SpeechStopped"; readonly atMs: number }
  | { readonly _tag: "Heard"; readonly text: string; readonly atMs: number }
  /** The agent's reply is over (played to the end); `ending`: the conversation decided to end the call. */
  | { readonly _tag: "AgentDone"; readonly ending: string | undefined }
  | { readonly _tag: "CallerGone" }
  | { readonly _tag: "TimeUp"; readonly reason: string }
  | { readonly _tag: "Voicemail"; readonly reason: VoicemailReason }
  /** A stage cannot go on (no language model, speech synthesis or recognition failing): the run fails. */
  | { readonly _tag: "Failed"; readonly reason: string }

export type TurnDecision =
  /** The agent answers `text` (the caller's turn from `startMs` to `endMs`; its last words recognized at `heardAtMs`). */
  | {
    readonly _tag: "Respond"
    readonly text: string
    readonly startMs: number
    readonly endMs: number
    readonly heardAtMs: number
    readonly checkVoicemail: boolean
  }
  /** Cut the reply in flight and clear what the provider holds. */
  | { readonly _tag: "BargeIn"; readonly speechStartedAtMs: number; readonly decidedAtMs: number }
  | { readonly _tag: "StartIdleTimer" }
  | { readonly _tag: "StopIdleTimer" }
  | { readonly _tag: "StartLongSpeechTimer" }
  | { readonly _tag: "StopLongSpeechTimer" }
  /** The call ends: `reason` is the end reason; `voicemail` or `failure` say why when it is one of those. */
  | {
    readonly _tag: "End"
    readonly reason: string
    readonly voicemail: VoicemailReason | undefined
    readonly failure: string | undefined
  }

export interface TurnState {
  readonly callerSpeaking: boolean
  readonly callerStartedAtMs: number
  readonly callerStoppedAtMs: number | undefined
  /** The caller's words not answered yet. */
  readonly heard: ReadonlyArray<{ readonly text: string; readonly atMs: number }>
  /** A reply of the agent is in flight (the opening counts). */
  readonly agentSpeaking: boolean
  /** The callee's first words are still to be checked for an answering machine. */
  readonly detectingVoicemail: boolean
  readonly longSpeechTimer: boolean
  readonly idleTimer: boolean
  readonly ended: boolean
}

/** At the start of a call the agent's opening is in flight. */
export const initialTurnState = (options: { readonly detectVoicemail: boolean }): TurnState => ({
  callerSpeaking: false,
  callerStartedAtMs: 0,
  callerStoppedAtMs: undefined,
  heard: [],
  agentSpeaking: true,
  detectingVoicemail: options.detectVoicemail,
  longSpeechTimer: false,
  idleTimer: false,
  ended: false
})

type Step = readonly [TurnState, ReadonlyArray<TurnDecision>]

const end = (state: TurnState, reason: string, extra: { voicemail?: VoicemailReason; failure?: string } = {}): Step => [
  { ...state, ended: true, agentSpeaking: false, idleTimer: false, longSpeechTimer: false },
  [{ _tag: "End", reason, voicemail: extra.voicemail, failure: extra.failure }]
]

/** The agent answers when the caller has finished, something was heard and no reply is in flight. */
const respond = (state: TurnState, before: ReadonlyArray<TurnDecision>): Step => {
  if (state.callerSpeaking || state.agentSpeaking || state.heard.length === 0) return [state, before]
  const first = state.heard[0]!
  const last = state.heard[state.heard.length - 1]!
  const decision: TurnDecision = {
    _tag: "Respond",
    text: state.heard.map((h) => h.text).join(" "),
    startMs: Math.min(state.callerStartedAtMs, first.atMs),
    endMs: state.callerStoppedAtMs ?? last.atMs,
    heardAtMs: last.atMs,
    checkVoicemail: state.detectingVoicemail
  }
  return [
    { ...state, heard: [], agentSpeaking: true, detectingVoicemail: false, idleTimer: false },
    [...before, ...(state.idleTimer ? [{ _tag: "StopIdleTimer" } as const] : []), decision]
  ]
}

/** One event: the next state and what to do, in order. After the end nothing changes. */
export const stepTurnTaking = (state: TurnState, event: TurnEvent): Step => {
  if (state.ended) return [state, []]
  switch (event._tag) {
    case "SpeechStarted": {
      const decisions: Array<TurnDecision> = []
      if (state.idleTimer) decisions.push({ _tag: "StopIdleTimer" })
      const armLongSpeech = state.detectingVoicemail && !state.longSpeechTimer
      if (armLongSpeech) decisions.push({ _tag: "StartLongSpeechTimer" })
      const bargeIn = state.agentSpeaking && event.interruptible
      if (bargeIn) decisions.push({ _tag: "BargeIn", speechStartedAtMs: event.atMs, decidedAtMs: event.decidedAtMs })
      return [{
        ...state,
        callerSpeaking: true,
        callerStartedAtMs: event.atMs,
        idleTimer: false,
        longSpeechTimer: state.longSpeechTimer || armLongSpeech,
        agentSpeaking: state.agentSpeaking && !bargeIn
      }, decisions]
    }
    case "SpeechStopped": {
      const next = { ...state, callerSpeaking: false, callerStoppedAtMs: event.atMs, longSpeechTimer: false }
      return respond(next, state.longSpeechTimer ? [{ _tag: "StopLongSpeechTimer" }] : [])
    }
    case "Heard":
      return respond({ ...state, heard: [...state.heard, { text: event.text, atMs: event.atMs }] }, [])
    case "AgentDone": {
      if (!state.agentSpeaking) return [state, []]
      if (event.ending !== undefined) return end(state, event.ending)
      const next = { ...state, agentSpeaking: false }
      if (next.heard.length > 0) return respond(next, [])
      if (next.callerSpeaking) return [next, []]
      return [{ ...next, idleTimer: true }, [{ _tag: "StartIdleTimer" }]]
    }
    case "CallerGone":
      return end(state, "user_hangup")
    case "TimeUp":
      return end(state, event.reason)
    case "Voicemail":
      return end(state, "voicemail_detected", { voicemail: event.reason })
    case "Failed":
      return end(state, "pipeline_error", { failure: event.reason })
  }
}
