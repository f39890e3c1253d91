/**
 * One call in the fake Twilio, played out in (scaled) real time the way Twilio plays a call: status
 * callbacks for the subscribed events, signed and posted in order; on answer, the answer URL is fetched
 * and its TwiML run (a `<Connect><Stream>` connects the media stream and holds the call until the
 * socket closes); the callee hangs up after the talk time; the final callback carries the duration
 * and, with machine detection, who answered.
 *
 * Carriers that speak Twilio's dialect (Cloudonix) extend it: `params` names what every request
 * carries, `authHeaders` how a request is authenticated, `request` how one is sent.
 */
import * as FakeCallbacks from "@agentline/telephony-kit/testing/FakeCallbacks"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
import * as Crypto from "node:crypto"
import { sign } from "../Signature.js"
import type { FakeConferences, Membership } from "./FakeConference.js"
import { connect, type MediaLeg } from "./FakeMedia.js"
import { parse, type Verb } from "./FakeTwiml.js"

/** `invalid`: Twilio refuses to dial the number at all (code 21211), as for a number that cannot exist. */
export type Answer = "human" | "machine" | "busy" | "no-answer" | "failed" | "invalid"

/** How the callee (outbound) or the caller (inbound) behaves; times in Twilio seconds. */
export interface Behaviour {
  readonly answer: Answer
  readonly ringSeconds?: number
  readonly talkSeconds?: number
  /** What the person says once the media stream is connected (µ-law 8 kHz). */
  readonly says?: Uint8Array
}

export type CallStatus = "queued" | "ringing" | "in-progress" | "completed" | "busy" | "failed" | "no-answer" | "canceled"

/** A status callback as posted (the request; its delivery status is the log's). */
export interface Callback {
  readonly url: string
  readonly params: ReadonlyArray<readonly [string, string]>
}

export interface Clock {
  /** Real milliseconds per Twilio second. */
  readonly secondMillis: number
}

const FINAL = new Set<CallStatus>(["completed", "busy", "failed", "no-answer", "canceled"])

export const newSid = (prefix: string) => `${prefix}${Crypto.randomBytes(16).toString("hex")}`

export class FakeCall {
  readonly sid: string = newSid("CA")
  status: CallStatus = "queued"
  answeredBy: string | undefined = undefined
  durationSeconds = 0
  /** The TwiML documents the call ran (answers of the application), in order. */
  readonly answers: Array<string> = []
  /** For an incoming call: the HTTP status of the voice webhook's answer. */
  webhookStatus: number | undefined = undefined
  media: MediaLeg | undefined = undefined
  /** The status callbacks, posted in order (`resend`, `forge` replay them). */
  readonly log: FakeCallbacks.CallbackLog<Callback>
  protected readonly timeline: FakeTimeline.Timeline
  private readonly endedLatch = FakeTimeline.latch<CallStatus>()
  private readonly mediaLatch = FakeTimeline.latch<MediaLeg>()
  protected answeredAt: number | undefined = undefined
  private sequence = 0
  /** Bumped when the call is redirected to a new document: the document running before stops there. */
  private generation = 0
  /** Where the call's `<Dial>` went (a transfer), once it dialed. */
  dialedTo: string | undefined = undefined
  /** What `<Say>` said to the person on this call, in order. */
  readonly said: Array<string> = []
  /** The conference room the call joined (`<Dial><Conference>`), once it did. */
  conference: string | undefined = undefined
  /** Whether the call waited on hold music in its conference (joined before the room started). */
  heldInConference = false
  private membership: Membership | undefined = undefined

  constructor(
    readonly account: { readonly sid: string; readonly token: string },
    readonly to: string,
    readonly from: string,
    readonly direction: "outbound-api" | "inbound",
    readonly behaviour: Behaviour,
    readonly clock: Clock,
    readonly options: {
      readonly url?: string | undefined
      /** A document given with the call (Twilio's `Twiml` parameter) instead of an answer URL to fetch. */
      readonly document?: string | undefined
      readonly statusCallback?: string | undefined
      readonly events: ReadonlySet<string>
      readonly machineDetection: boolean
      readonly timeoutSeconds: number
      /** How a number this call `<Dial>`s behaves (the fake's callees). */
      readonly dialed?: ((to: string) => Behaviour) | undefined
      /** The account's conference rooms (`<Dial><Conference>`). */
      readonly conferences?: FakeConferences | undefined
    }
  ) {
    this.timeline = FakeTimeline.make(clock.secondMillis)
    this.log = FakeCallbacks.make((callback, signing) => this.deliver(callback, signing))
  }

  get isOver() {
    return FINAL.has(this.status)
  }

  /** Resolves with the final status once every callback of the call was posted. */
  get ended(): Promise<CallStatus> {
    return this.endedLatch.promise
  }

  /** Resolves once the call's media stream is connected. */
  get mediaConnected(): Promise<MediaLeg> {
    return this.mediaLatch.promise
  }

  /** The callbacks delivered so far, in order. */
  get callbacks(): ReadonlyArray<Callback> {
    return this.log.delivered().map((d) => d.request)
  }

  /** The parameters Twilio sends with every request about this call. */
  params(extra: Record<string, string | undefined> = {}): Array<readonly [string, string]> {
    const base: Record<string, string | undefined> = {
      AccountSid: this.account.sid,
      ApiVersion: "2010-04-01",
      CallSid: this.sid,
      CallStatus: this.status,
      Called: this.to,
      Caller: this.from,
      Direction: this.direction,
      From: this.from,
      To: this.to,
      ...extra
    }
    return Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined)
  }

  /** The headers that authenticate a request about this call, made with `token`: Twilio signs the URL and parameters. */
  authHeaders(url: string, params: ReadonlyArray<readonly [string, string]>, token: string): Record<string, string> {
    return {
      "x-twilio-signature": sign(token, url, params),
      "i-twilio-idempotency-token": Crypto.randomUUID(),
      "user-agent": "TwilioProxy/1.1"
    }
  }

  /** A request about the call as Twilio sends it (a signed form POST): the application's answer. */
  request(url: string, params: ReadonlyArray<readonly [string, string]>, token = this.account.token): Promise<FakeHttp.Answered> {
    return FakeHttp.postForm(url, params, this.authHeaders(url, params, token))
  }

  /** A status callback, signed as Twilio signs it, with another token, or not at all. */
  protected async deliver(callback: Callback, signing: FakeCallbacks.Signing): Promise<number> {
    if (signing === "missing") return (await FakeHttp.postForm(callback.url, callback.params)).status
    return (await this.request(callback.url, callback.params, signing === "wrong" ? "not-the-auth-token" : this.account.token)).status
  }

  /** Queues the status callback of `event`, if subscribed (`completed` always is). */
  private notify(event: "initiated" | "ringing" | "answered" | "completed") {
    const url = this.options.statusCallback
    if (url === undefined || (event !== "completed" && !this.options.events.has(event))) return
    this.log.post({
      url,
      params: this.params({
        CallbackSource: "call-progress-events",
        SequenceNumber: String(this.sequence++),
        Timestamp: new Date().toUTCString().replace("GMT", "+0000"),
        ...(event === "initiated" ? { CallStatus: "initiated" } : {}),
        ...(event === "completed" ? { CallDuration: String(this.durationSeconds), Duration: String(Math.ceil(this.durationSeconds / 60)) } : {}),
        ...(this.answeredBy !== undefined ? { AnsweredBy: this.answeredBy } : {})
      })
    })
  }

  /** Ends the call with `status` (once); `completed` counts the talk time since the answer. */
  end(status: CallStatus, talkSeconds?: number) {
    if (this.isOver) return
    if (status === "completed" && this.answeredAt !== undefined) {
      this.durationSeconds = talkSeconds ?? Math.round((Date.now() - this.answeredAt) / this.clock.secondMillis)
    }
    this.status = status
    this.timeline.stop()
    if (this.media?.isOpen()) this.media.stop()
    this.membership?.leave()
    this.notify("completed")
    this.log.afterPosted(() => this.endedLatch.resolve(status))
  }

  /** Plays an outbound call out. */
  async play(): Promise<void> {
    const ring = this.behaviour.ringSeconds ?? 1
    this.notify("initiated")
    await this.timeline.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "failed") return this.end("failed")
    this.status = "ringing"
    this.notify("ringing")
    if (this.behaviour.answer === "no-answer") {
      await this.timeline.after(this.options.timeoutSeconds)
      return this.end("no-answer")
    }
    await this.timeline.after(ring)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("busy")
    this.answer(this.behaviour.answer === "machine" ? "machine_start" : "human")
    this.notify("answered")
    if (this.options.document !== undefined) return this.run(this.options.document)
    const twiml = this.options.url === undefined ? undefined : await this.request(this.options.url, this.params(this.amdParams()))
    if (this.isOver) return
    await this.run(twiml?.status === 200 ? twiml.body : undefined)
  }

  private amdParams() {
    return this.answeredBy !== undefined ? { AnsweredBy: this.answeredBy } : {}
  }

  /** The callee picks up: with machine detection asked for, Twilio says who. */
  answer(who: "human" | "machine_start") {
    this.status = "in-progress"
    this.answeredAt = Date.now()
    if (this.options.machineDetection) this.answeredBy = who
    const talk = this.behaviour.talkSeconds ?? 2
    this.timeline.schedule(talk, () => this.end("completed", talk))
  }

  /**
   * The call updated with new TwiML (`Twiml=` on `Calls/{sid}.json`): what it ran stops (a media stream
   * gets its `stop` and closes), the new document runs.
   */
  redirect(document: string) {
    this.generation++
    if (this.media?.isOpen()) this.media.stop()
    this.membership?.leave()
    void this.run(document)
  }

  /** Runs a TwiML document; the call ends when it runs out (or cannot be read: Twilio error 12100). */
  async run(document: string | undefined): Promise<void> {
    const generation = this.generation
    if (document !== undefined) this.answers.push(document)
    const verbs: ReadonlyArray<Verb> | undefined = document === undefined ? undefined : parse(document)
    if (verbs === undefined) return this.end("completed")
    for (const verb of verbs) {
      if (this.isOver || this.generation !== generation) return
      switch (verb._tag) {
        case "Stream": {
          const leg = await connect({
            url: verb.url,
            parameters: verb.parameters,
            callSid: this.sid,
            accountSid: this.account.sid,
            authToken: this.account.token,
            frameMillis: Math.max(1, this.clock.secondMillis / 50)
          }).catch(() => undefined)
          if (leg === undefined) break
          this.media = leg
          this.mediaLatch.resolve(leg)
          if (this.behaviour.says !== undefined) leg.speak(this.behaviour.says)
          await leg.closed
          break
        }
        case "Pause":
          await this.timeline.after(verb.seconds)
          break
        case "Say":
          this.said.push(verb.text)
          await this.timeline.after(0.1)
          break
        case "Hangup":
          return this.end("completed")
        case "Redirect": {
          // The rest of this document is dropped: the call runs the document the URL answers.
          const next = await this.request(verb.url, this.params(this.amdParams()))
          if (this.isOver) return
          return this.run(next.status === 200 ? next.body : undefined)
        }
        case "Reject":
          return this.end(verb.reason === "busy" ? "busy" : "failed")
        case "Conference": {
          if (this.options.conferences === undefined) return this.end("failed")
          const membership = this.options.conferences.join(this.account.sid, verb.name, this.sid, verb)
          this.membership = membership
          this.conference = verb.name
          if (!membership.startedOnJoin && !verb.startOnEnter) this.heldInConference = true
          await membership.out
          if (this.membership === membership) this.membership = undefined
          if (this.isOver || this.generation !== generation) return
          if (verb.action !== undefined) {
            const answered = await this.request(verb.action, this.params())
            if (this.isOver || this.generation !== generation) return
            return this.run(answered.status === 200 ? answered.body : undefined)
          }
          break
        }
        case "Dial": {
          const next = await this.dial(verb)
          if (this.isOver || this.generation !== generation) return
          if (next !== undefined) return this.run(next)
          break
        }
      }
    }
    if (this.generation === generation) this.end("completed")
  }

  /**
   * `<Dial>`: a child call to the target, as the fake's callees behave; its status callbacks (the events
   * subscribed) and, when the dial is over, the `action` with `DialCallStatus`: the document it answers
   * runs next (undefined: the call goes on with the rest of its document).
   */
  private async dial(verb: Extract<Verb, { readonly _tag: "Dial" }>): Promise<string | undefined> {
    this.dialedTo = verb.target
    const behaviour = this.options.dialed?.(verb.target) ?? { answer: "human" as const }
    const child = newSid("CA")
    const report = (status: string, event: string, extra: Record<string, string> = {}) => {
      if (verb.statusCallback === undefined || !verb.statusEvents.has(event)) return
      const params = this.params({ CallSid: child, ParentCallSid: this.sid, CallStatus: status, To: verb.target, Called: verb.target, Direction: "outbound-dial", ...extra })
      void this.request(verb.statusCallback, params)
    }
    let dialStatus: string
    let talked = 0
    if (behaviour.answer === "failed" || behaviour.answer === "invalid") {
      dialStatus = "failed"
      report("failed", "completed", { SipResponseCode: "404" })
    } else if (behaviour.answer === "no-answer") {
      await this.timeline.after(verb.timeoutSeconds)
      dialStatus = "no-answer"
      report("no-answer", "completed", { SipResponseCode: "487" })
    } else {
      await this.timeline.after(behaviour.ringSeconds ?? 1)
      if (behaviour.answer === "busy") {
        dialStatus = "busy"
        report("busy", "completed", { SipResponseCode: "486" })
      } else {
        report("in-progress", "answered")
        talked = behaviour.talkSeconds ?? 2
        await this.timeline.after(talked)
        dialStatus = "completed"
        report("completed", "completed", { CallDuration: String(talked) })
      }
    }
    if (this.isOver || verb.action === undefined) return undefined
    const answered = await this.request(verb.action, this.params({ DialCallSid: child, DialCallStatus: dialStatus, DialCallDuration: String(talked) }))
    return answered.status === 200 ? answered.body : undefined
  }

  /** The first callback posted again with a wrong signature, or without one: the HTTP status. */
  forge(signature: "wrong" | "missing"): Promise<number> {
    return this.log.forge(signature)
  }

  /** Sends the callbacks posted so far again (Twilio retries), in their order or reversed. */
  resend(order: "same" | "reverse"): Promise<ReadonlyArray<number>> {
    return this.log.resend(order)
  }
}
