/**
 * One call of the fake Vonage, played out as Vonage plays it (see `FakeVonage`): its events posted in
 * order to the call's `event_url`, signed and delivered again when the server cannot be reached or
 * answers 5xx; once answered, machine detection, then the answer URL requested and its NCCO run
 * (`talk`, `conversation`, `connect` to a `websocket`: the media leg of `FakeVonageMedia`).
 */
import * as FakeCallbacks from "@agentline/telephony-kit/testing/FakeCallbacks"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
import * as Crypto from "node:crypto"
import * as Jwt from "../Jwt.js"
import { connectLeg, postSigned } from "./FakeVonageConnect.js"
import { connect, type MediaLeg } from "./FakeVonageMedia.js"

export type Answer = "human" | "machine" | "busy" | "no-answer" | "failed" | "invalid"

/** How the callee (outbound) or the caller (inbound) behaves; times in Vonage seconds. */
export interface Behaviour {
  readonly answer: Answer
  readonly ringSeconds?: number
  readonly talkSeconds?: number
}

export interface Account {
  readonly apiKey: string
  readonly apiSecret: string
  readonly signatureSecret: string
}

export interface Application {
  readonly id: string
  name: string
  /** PEM public key the application's JWTs verify with. */
  publicKey: string
  answerUrl: string | null
  eventUrl: string | null
  signedCallbacks: boolean
}

export type CallStatus = "started" | "ringing" | "answered" | "completed" | "busy" | "cancelled" | "unanswered" | "failed" | "rejected" | "timeout"

const FINAL = new Set<CallStatus>(["completed", "busy", "cancelled", "unanswered", "failed", "rejected", "timeout"])

/** An event as posted (the request; its delivery status is the log's). */
export interface Event {
  readonly url: string
  readonly body: string
  readonly token: string
}

export interface PostedEvent extends Event {
  readonly status: number
}

export const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

export class FakeVonageCall {
  readonly uuid = Crypto.randomUUID()
  readonly conversationUuid = `CON-${Crypto.randomUUID()}`
  status: CallStatus = "started"
  durationSeconds = 0
  /** NCCOs this call ran (as answered by the server), raw. */
  readonly nccos: Array<string> = []
  /** For an incoming call: the HTTP status of the answer URL's response. */
  answerStatus: number | undefined = undefined
  media: MediaLeg | undefined = undefined
  /** The events, posted in order (`resend`, `forge` replay them). */
  readonly log: FakeCallbacks.CallbackLog<Event>
  private readonly timeline: FakeTimeline.Timeline
  private readonly endedLatch = FakeTimeline.latch<CallStatus>()
  private readonly mediaLatch = FakeTimeline.latch<MediaLeg>()
  private answeredAt: number | undefined = undefined
  /** Bumped when the call is transferred to a new NCCO: the one running before stops there. */
  private generation = 0
  /** Where a transfer's `connect` dialed (a phone number with `+`, or a SIP URI), once it dialed. */
  dialedTo: string | undefined = undefined

  constructor(
    readonly account: Account,
    readonly application: Application,
    readonly to: string,
    readonly from: string,
    readonly direction: "outbound" | "inbound",
    readonly behaviour: Behaviour,
    readonly secondMillis: number,
    readonly options: {
      readonly answerUrl: string | null
      readonly eventUrl: string | null
      readonly machineDetection: boolean
      readonly ringingTimer: number
      /** How a number or SIP URI a `connect` dials behaves (the fake's callees). */
      readonly dialed?: ((to: string) => Behaviour) | undefined
    }
  ) {
    this.timeline = FakeTimeline.make(secondMillis)
    this.log = FakeCallbacks.make((event, signing) => this.deliver(event, signing))
  }

  get ended(): Promise<CallStatus> {
    return this.endedLatch.promise
  }

  get mediaConnected(): Promise<MediaLeg> {
    return this.mediaLatch.promise
  }

  /** The events delivered so far, in order, with the application's status. */
  get events(): ReadonlyArray<PostedEvent> {
    return this.log.delivered().map((d) => ({ ...d.request, status: d.status }))
  }

  /** An event as Vonage posts it: signed (or with a JWT under another secret, or none); delivered again on 5xx. */
  private async deliver(event: Event, signing: FakeCallbacks.Signing): Promise<number> {
    const token = signing === "good" ? event.token : signing === "wrong" ? this.sign(event.body, "not-the-signature-secret") : undefined
    let code = 0
    for (let attempt = 0; attempt < 3; attempt++) {
      code = (await postSigned(event.url, event.body, token)).status
      if (signing !== "good" || (code !== 0 && code < 500)) break
      await sleep(50)
    }
    return code
  }

  get isOver() {
    return FINAL.has(this.status)
  }

  get answered() {
    return this.answeredAt !== undefined
  }

  sign(body: string, secret = this.account.signatureSecret) {
    return Jwt.signWebhook({ secret, apiKey: this.account.apiKey, applicationId: this.application.id, body, nowMillis: Date.now() })
  }

  /** What Vonage says about this call in its events and lookups. */
  private describe(status: string, extra: Record<string, unknown> = {}) {
    return {
      from: this.from,
      to: this.to,
      uuid: this.uuid,
      conversation_uuid: this.conversationUuid,
      status,
      direction: this.direction,
      timestamp: new Date().toISOString(),
      ...extra
    }
  }

  /** Queues the event `status` for the event URL, signed, in order. */
  private event(status: string, extra: Record<string, unknown> = {}) {
    const url = this.options.eventUrl
    if (url === null) return
    const body = JSON.stringify(this.describe(status, extra))
    // Vonage delivers an event again when the webhook could not be reached or failed (5xx).
    this.log.post({ url, body, token: this.sign(body) })
  }

  /** The call as `GET /v1/calls/{uuid}` shows it. */
  resource() {
    return {
      ...this.describe(this.status),
      to: { type: "phone", number: this.to },
      from: { type: "phone", number: this.from },
      ...(this.isOver ? { duration: String(this.durationSeconds), end_time: new Date().toISOString() } : {}),
      rate: "0.01",
      network: "fake"
    }
  }

  /** Ends the call with `status` (once); `completed` counts the talk time since the answer. */
  end(status: CallStatus, talkSeconds?: number) {
    if (this.isOver) return
    if (status === "completed" && this.answeredAt !== undefined) {
      this.durationSeconds = talkSeconds ?? Math.max(1, Math.round((Date.now() - this.answeredAt) / this.secondMillis))
    }
    this.status = status
    this.timeline.stop()
    if (this.media?.isOpen()) this.media.stop()
    this.event(status, status === "completed" ? { duration: String(this.durationSeconds), start_time: null, end_time: new Date().toISOString() } : {})
    this.log.afterPosted(() => this.endedLatch.resolve(status))
  }

  /** Hang-up through the API: an answered call completes, a ringing one is cancelled. */
  hangUp() {
    this.end(this.answered ? "completed" : "cancelled")
  }

  /** Plays an outbound call out. */
  async play(): Promise<void> {
    this.event("started")
    await this.timeline.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "failed") return this.end("failed")
    this.status = "ringing"
    this.event("ringing")
    if (this.behaviour.answer === "no-answer") {
      await this.timeline.after(this.options.ringingTimer)
      return this.end("unanswered")
    }
    await this.timeline.after(this.behaviour.ringSeconds ?? 1)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("busy")
    // With detection the callee's talk time runs from the verdict: the call cannot end (by the callee
    // hanging up) before Vonage decided, whatever order late timers fire in.
    this.pickUp(!this.options.machineDetection)
    this.event("answered")
    if (this.options.machineDetection) {
      // Synchronous detection: the verdict comes before the NCCO is asked for.
      await this.timeline.after(1)
      if (this.isOver) return
      if (this.behaviour.answer === "machine") {
        this.event("machine", { sub_state: "machine" })
        return this.end("completed")
      }
      this.event("human")
      this.talk(1)
    }
    await this.fetchAndRun()
  }

  /** The callee picks up; they hang up after their talk time (from now, or from `talk()`). */
  pickUp(talking = true) {
    this.status = "answered"
    this.answeredAt = Date.now()
    if (talking) this.talk()
  }

  /** The callee talks for their talk time, then hangs up; `since` seconds of the call were answered already. */
  private talk(since = 0) {
    const talk = this.behaviour.talkSeconds ?? 2
    this.timeline.schedule(talk, () => this.end("completed", since + talk))
  }

  /** Requests the answer URL (signed JSON) and runs the NCCO it answers. */
  async fetchAndRun(secret?: string): Promise<void> {
    const url = this.options.answerUrl
    if (url === null) return this.end("failed")
    const body = JSON.stringify({ to: this.to, from: this.from, uuid: this.uuid, conversation_uuid: this.conversationUuid, region_url: "http://127.0.0.1" })
    const answered = await postSigned(url, body, this.sign(body, secret))
    this.answerStatus = answered.status
    if (this.isOver) return
    if (answered.status !== 200) return this.end(this.answered ? "completed" : "failed")
    this.nccos.push(answered.body)
    let ncco: unknown
    try {
      ncco = JSON.parse(answered.body)
    } catch {
      ncco = undefined
    }
    if (!Array.isArray(ncco)) return this.end(this.answered ? "completed" : "failed")
    await this.run(ncco)
  }

  /**
   * `PUT {"action": "transfer"}` with an inline NCCO: the call leaves its conversation (its WebSocket
   * leg closes; the call's events get `transfer`) and runs the NCCO in a new one.
   */
  transfer(ncco: ReadonlyArray<any>) {
    this.generation++
    const url = this.options.eventUrl
    if (url !== null) {
      const body = JSON.stringify({ conversation_uuid_from: this.conversationUuid, conversation_uuid_to: this.conversationUuid, uuid: this.uuid, timestamp: new Date().toISOString() })
      this.log.post({ url, body, token: this.sign(body) })
    }
    if (this.media?.isOpen()) this.media.stop()
    void this.run(ncco)
  }

  private async run(ncco: ReadonlyArray<any>): Promise<void> {
    const generation = this.generation
    for (const action of ncco) {
      if (this.isOver || this.generation !== generation) return
      // An incoming call is answered by its first action that needs the line.
      if (!this.answered && this.direction === "inbound") this.pickUp()
      switch (action?.action) {
        case "talk":
          await this.timeline.after(0.5)
          break
        case "conversation":
          await this.timeline.after(86_400)
          break
        case "connect": {
          const endpoint = Array.isArray(action.endpoint) ? action.endpoint[0] : undefined
          if ((endpoint?.type === "phone" && typeof endpoint.number === "string") || (endpoint?.type === "sip" && typeof endpoint.uri === "string")) {
            await connectLeg(this, action, endpoint, this.options.dialed ?? (() => ({ answer: "human" })))
            break
          }
          if (endpoint?.type !== "websocket" || typeof endpoint.uri !== "string") break
          const leg = await connect({
            uri: endpoint.uri,
            contentType: String(endpoint["content-type"] ?? "audio/l16;rate=16000"),
            headers: typeof endpoint.headers === "object" && endpoint.headers !== null ? endpoint.headers : {},
            frameMillis: Math.max(1, this.secondMillis / 50)
          }).catch(() => undefined)
          if (leg === undefined) break
          this.media = leg
          this.mediaLatch.resolve(leg)
          await Promise.race([leg.closed, this.ended])
          break
        }
        default:
          break
      }
    }
    if (!this.isOver && this.generation === generation) this.end(this.answered ? "completed" : "failed")
  }

  /** The first event posted again with a JWT signed with another secret, or without one: the HTTP status. */
  forge(signature: "wrong" | "missing"): Promise<number> {
    return this.log.forge(signature)
  }

  /** Posts the events posted so far again (Vonage retries), as they were, in their order or reversed. */
  resend(order: "same" | "reverse"): Promise<ReadonlyArray<number>> {
    return this.log.resend(order)
  }
}
