/**
 * One call of the fake Vonage, played out as Vonage plays it (see `FakeVonage`): its events posted in
 * order to the call's `event_url`, signed and delivered again when the server cannot be reached or
 * answers 5xx; once answered, machine detection, then the answer URL requested and its NCCO run
 * (`talk`, `conversation`, `connect` to a `websocket`: the media leg of `FakeVonageMedia`).
 */
import * as Crypto from "node:crypto"
import * as Jwt from "../Jwt.js"
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

export interface PostedEvent {
  readonly url: string
  readonly body: string
  readonly token: string
  readonly status: number
}

export const sleep = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

/** A signed JSON POST as Vonage sends its webhooks; answers the response's status and body. */
const postSigned = async (url: string, body: string, token: string | undefined) => {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "Vonage-Voice/1.0", ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body
    })
    return { status: response.status, body: await response.text() }
  } catch {
    return { status: 0, body: "" }
  }
}

export class FakeVonageCall {
  readonly uuid = Crypto.randomUUID()
  readonly conversationUuid = `CON-${Crypto.randomUUID()}`
  status: CallStatus = "started"
  durationSeconds = 0
  readonly events: Array<PostedEvent> = []
  /** NCCOs this call ran (as answered by the server), raw. */
  readonly nccos: Array<string> = []
  /** For an incoming call: the HTTP status of the answer URL's response. */
  answerStatus: number | undefined = undefined
  media: MediaLeg | undefined = undefined
  readonly ended: Promise<CallStatus>
  readonly mediaConnected: Promise<MediaLeg>
  private resolveMedia!: (leg: MediaLeg) => void
  private resolveEnded!: (status: CallStatus) => void
  private answeredAt: number | undefined = undefined
  private posting: Promise<void> = Promise.resolve()
  private timers: Array<ReturnType<typeof setTimeout>> = []
  private wake: Array<() => void> = []

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
    }
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve))
    this.mediaConnected = new Promise((resolve) => (this.resolveMedia = resolve))
  }

  get isOver() {
    return FINAL.has(this.status)
  }

  get answered() {
    return this.answeredAt !== undefined
  }

  /** Waits `seconds` of Vonage time, or until the call ends. */
  private after(seconds: number) {
    return new Promise<void>((resolve) => {
      this.timers.push(setTimeout(resolve, seconds * this.secondMillis))
      this.wake.push(resolve)
    })
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
    this.posting = this.posting.then(async () => {
      const token = this.sign(body)
      // Vonage delivers an event again when the webhook could not be reached or failed (5xx).
      let code = 0
      for (let attempt = 0; attempt < 3; attempt++) {
        code = (await postSigned(url, body, token)).status
        if (code !== 0 && code < 500) break
        await sleep(50)
      }
      this.events.push({ url, body, token, status: code })
    })
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
    for (const timer of this.timers) clearTimeout(timer)
    for (const wake of this.wake.splice(0)) wake()
    if (this.media?.isOpen()) this.media.stop()
    this.event(status, status === "completed" ? { duration: String(this.durationSeconds), start_time: null, end_time: new Date().toISOString() } : {})
    void this.posting.then(() => this.resolveEnded(status))
  }

  /** Hang-up through the API: an answered call completes, a ringing one is cancelled. */
  hangUp() {
    this.end(this.answered ? "completed" : "cancelled")
  }

  /** Plays an outbound call out. */
  async play(): Promise<void> {
    this.event("started")
    await this.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "failed") return this.end("failed")
    this.status = "ringing"
    this.event("ringing")
    if (this.behaviour.answer === "no-answer") {
      await this.after(this.options.ringingTimer)
      return this.end("unanswered")
    }
    await this.after(this.behaviour.ringSeconds ?? 1)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("busy")
    // With detection the callee's talk time runs from the verdict: the call cannot end (by the callee
    // hanging up) before Vonage decided, whatever order late timers fire in.
    this.pickUp(!this.options.machineDetection)
    this.event("answered")
    if (this.options.machineDetection) {
      // Synchronous detection: the verdict comes before the NCCO is asked for.
      await this.after(1)
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
    this.timers.push(setTimeout(() => this.end("completed", since + talk), talk * this.secondMillis))
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

  private async run(ncco: ReadonlyArray<any>): Promise<void> {
    for (const action of ncco) {
      if (this.isOver) return
      // An incoming call is answered by its first action that needs the line.
      if (!this.answered && this.direction === "inbound") this.pickUp()
      switch (action?.action) {
        case "talk":
          await this.after(0.5)
          break
        case "conversation":
          await this.after(86_400)
          break
        case "connect": {
          const endpoint = Array.isArray(action.endpoint) ? action.endpoint[0] : undefined
          if (endpoint?.type !== "websocket" || typeof endpoint.uri !== "string") break
          const leg = await connect({
            uri: endpoint.uri,
            contentType: String(endpoint["content-type"] ?? "audio/l16;rate=16000"),
            headers: typeof endpoint.headers === "object" && endpoint.headers !== null ? endpoint.headers : {},
            frameMillis: Math.max(1, this.secondMillis / 50)
          }).catch(() => undefined)
          if (leg === undefined) break
          this.media = leg
          this.resolveMedia(leg)
          await Promise.race([leg.closed, this.ended])
          break
        }
        default:
          break
      }
    }
    if (!this.isOver) this.end(this.answered ? "completed" : "failed")
  }

  /** The first event posted again with a JWT signed with another secret, or without one: the HTTP status. */
  async forge(signature: "wrong" | "missing"): Promise<number> {
    await this.posting
    const first = this.events[0]
    if (first === undefined) throw new Error(`call ${this.uuid} posted no event`)
    return (await postSigned(first.url, first.body, signature === "wrong" ? this.sign(first.body, "not-the-signature-secret") : undefined)).status
  }

  /** Posts the events posted so far again (Vonage retries), as they were, in their order or reversed. */
  async resend(order: "same" | "reverse"): Promise<ReadonlyArray<number>> {
    await this.posting
    const posted = order === "same" ? [...this.events] : [...this.events].reverse()
    const statuses: Array<number> = []
    for (const event of posted) statuses.push((await postSigned(event.url, event.body, event.token)).status)
    return statuses
  }
}
