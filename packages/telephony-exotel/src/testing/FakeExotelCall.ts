/**
 * One call of the fake Exotel, played out in (scaled) real time: ringing, answered, talk, hang-up;
 * busy; no-answer; failed. Status callbacks are form posts to the `StatusCallback` URL exactly as given;
 * an answered call connects its media leg (`FakeExotelMedia`).
 */
import { connectMedia, type MediaLeg, sidOf } from "./FakeExotelMedia.js"

export interface Account {
  readonly sid: string
  readonly apiKey: string
  readonly apiToken: string
}

/** `invalid`: Exotel refuses to dial the number at all. */
export type Answer = "human" | "busy" | "no-answer" | "failed" | "invalid"

/** How the callee (outbound) or the caller (inbound) behaves; times in Exotel seconds. */
export interface Behaviour {
  readonly answer: Answer
  readonly ringSeconds?: number
  readonly talkSeconds?: number
}

export type Status = "queued" | "ringing" | "in-progress" | "completed" | "busy" | "failed" | "no-answer" | "canceled"

const FINAL = new Set<Status>(["completed", "busy", "failed", "no-answer", "canceled"])

export interface PostedCallback {
  readonly url: string
  readonly params: ReadonlyArray<readonly [string, string]>
  readonly status: number
}

/** Exotel's time format, `YYYY-MM-DD HH:mm:ss`. */
export const timestamp = (at: number) => new Date(at).toISOString().replace("T", " ").slice(0, 19)

export class ExotelCall {
  readonly sid = sidOf()
  status: Status = "queued"
  durationSeconds = 0
  readonly createdAt = Date.now()
  startedAt: number | undefined = undefined
  endedAt: number | undefined = undefined
  readonly callbacks: Array<PostedCallback> = []
  /** For an incoming call: the status and body of the applet URL's answer. */
  webhookStatus: number | undefined = undefined
  webhookBody: string | undefined = undefined
  media: MediaLeg | undefined = undefined
  readonly ended: Promise<Status>
  readonly mediaConnected: Promise<MediaLeg>
  private resolveMedia!: (leg: MediaLeg) => void
  private resolveEnded!: (status: Status) => void
  private answeredAt: number | undefined = undefined
  private posting: Promise<void> = Promise.resolve()
  private timers: Array<ReturnType<typeof setTimeout>> = []
  private wake: (() => void) | undefined = undefined

  constructor(
    readonly account: Account,
    /** The number dialed (outbound: the callee, Exotel's `From`; inbound: the ExoPhone). */
    readonly to: string,
    /** The other party (outbound: the ExoPhone shown; inbound: the caller). */
    readonly from: string,
    readonly direction: "outbound-api" | "inbound",
    readonly behaviour: Behaviour,
    readonly secondMillis: number,
    readonly options: {
      readonly streamUrl?: string | undefined
      readonly statusCallback?: string | undefined
      readonly events: ReadonlySet<string>
      readonly customField?: string | undefined
      readonly timeoutSeconds: number
    }
  ) {
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve))
    this.mediaConnected = new Promise((resolve) => (this.resolveMedia = resolve))
  }

  get isOver() {
    return FINAL.has(this.status)
  }

  private after(seconds: number) {
    return new Promise<void>((resolve) => {
      this.timers.push(setTimeout(resolve, seconds * this.secondMillis))
      this.wake = resolve
    })
  }

  /** The call details API's view of the call. */
  details() {
    return {
      Call: {
        Sid: this.sid,
        ParentCallSid: null,
        DateCreated: timestamp(this.createdAt),
        DateUpdated: timestamp(Date.now()),
        AccountSid: this.account.sid,
        To: this.direction === "inbound" ? this.to : "",
        From: this.direction === "inbound" ? this.from : this.to,
        PhoneNumberSid: this.direction === "inbound" ? this.to : this.from,
        Status: this.status,
        StartTime: this.startedAt === undefined ? null : timestamp(this.startedAt),
        EndTime: this.endedAt === undefined ? null : timestamp(this.endedAt),
        Duration: this.isOver ? String(this.durationSeconds) : null,
        Price: null,
        Direction: this.direction,
        AnsweredBy: null,
        ForwardedFrom: null,
        CallerName: null,
        Uri: `/v1/Accounts/${this.account.sid}/Calls/${this.sid}.json`,
        RecordingUrl: null
      }
    }
  }

  private callbackParams(event: "answered" | "terminal" | "ringing"): Array<readonly [string, string]> {
    const now = Date.now()
    const base: Record<string, string> = {
      CallSid: this.sid,
      EventType: event,
      Status: this.status,
      DateCreated: timestamp(this.createdAt),
      DateUpdated: timestamp(now),
      To: "",
      From: this.to,
      PhoneNumberSid: this.from,
      StartTime: timestamp(this.startedAt ?? this.createdAt),
      Direction: this.direction,
      CustomField: this.options.customField ?? "",
      RecordingUrl: ""
    }
    if (event === "terminal") {
      base.EndTime = timestamp(this.endedAt ?? now)
      base.ConversationDuration = String(this.durationSeconds)
    }
    return Object.entries(base)
  }

  async post(url: string, params: ReadonlyArray<readonly [string, string]>): Promise<number> {
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "user-agent": "Exotel/1.0" },
        body: new URLSearchParams(params.map(([k, v]) => [k, v])).toString()
      })
      await response.text()
      return response.status
    } catch {
      return 0
    }
  }

  /** Queues the callback of `event` if subscribed; the end is always reported. */
  private notify(event: "answered" | "terminal" | "ringing") {
    const url = this.options.statusCallback
    if (url === undefined || (event !== "terminal" && !this.options.events.has(event))) return
    const params = this.callbackParams(event)
    this.posting = this.posting.then(async () => {
      const status = await this.post(url, params)
      this.callbacks.push({ url, params, status })
    })
  }

  /** Ends the call with `status` (once); `completed` counts the talk time since the answer. */
  end(status: Status, talkSeconds?: number) {
    if (this.isOver) return
    if (status === "completed" && this.answeredAt !== undefined) {
      this.durationSeconds = Math.max(1, talkSeconds ?? Math.round((Date.now() - this.answeredAt) / this.secondMillis))
    }
    this.status = status
    this.endedAt = Date.now()
    for (const timer of this.timers) clearTimeout(timer)
    this.wake?.()
    if (this.media?.isOpen()) this.media.stop()
    this.notify("terminal")
    void this.posting.then(() => this.resolveEnded(status))
  }

  /** The callee (or, inbound, Exotel's flow) picks up. */
  answer() {
    this.status = "in-progress"
    this.answeredAt = Date.now()
    const talk = this.behaviour.talkSeconds ?? 2
    this.timers.push(setTimeout(() => this.end("completed", talk), talk * this.secondMillis))
  }

  /** Connects the answered call's media; the call ends when the socket closes (nothing else is left to do). */
  async stream(url: string): Promise<void> {
    const leg = await connectMedia({
      url,
      callSid: this.sid,
      accountSid: this.account.sid,
      from: this.direction === "inbound" ? this.from : this.to,
      to: this.direction === "inbound" ? this.to : this.from,
      frameMillis: Math.max(1, this.secondMillis / 50)
    }).catch(() => undefined)
    if (leg === undefined) return this.end("completed")
    this.media = leg
    this.resolveMedia(leg)
    await leg.closed
    this.end("completed")
  }

  /** Plays an outbound call out. */
  async play(): Promise<void> {
    this.startedAt = Date.now()
    await this.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "failed") return this.end("failed")
    this.status = "ringing"
    this.notify("ringing")
    if (this.behaviour.answer === "no-answer") {
      await this.after(this.options.timeoutSeconds)
      return this.end("no-answer")
    }
    await this.after(this.behaviour.ringSeconds ?? 1)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("busy")
    this.answer()
    this.notify("answered")
    // The answered report is out before the media connects.
    await this.posting
    if (this.isOver || this.options.streamUrl === undefined) return
    await this.stream(this.options.streamUrl)
  }

  /** The first callback posted again with a wrong token, or without one: the HTTP status. */
  async forge(signature: "wrong" | "missing"): Promise<number> {
    await this.posting
    const first = this.callbacks[0]
    if (first === undefined) throw new Error(`call ${this.sid} posted no callback`)
    const url = new URL(first.url)
    const names = [...url.searchParams.keys()].filter((k) => /token/i.test(k))
    for (const name of names) {
      if (signature === "wrong") url.searchParams.set(name, "not-the-token")
      else url.searchParams.delete(name)
    }
    return this.post(url.toString(), first.params)
  }

  /** The callbacks posted so far posted again (Exotel retries), in their order or reversed. */
  async resend(order: "same" | "reverse"): Promise<ReadonlyArray<number>> {
    await this.posting
    const posted = order === "same" ? [...this.callbacks] : [...this.callbacks].reverse()
    const statuses: Array<number> = []
    for (const callback of posted) statuses.push(await this.post(callback.url, callback.params))
    return statuses
  }
}

// ------------------------------------------------------------------------------------------- the server
