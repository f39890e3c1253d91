/**
 * One call of the fake Exotel, played out in (scaled) real time: ringing, answered, talk, hang-up;
 * busy; no-answer; failed. Status callbacks are form posts to the `StatusCallback` URL exactly as given;
 * an answered call connects its media leg (`FakeExotelMedia`).
 */
import * as FakeCallbacks from "@agentline/telephony-kit/testing/FakeCallbacks"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
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

/** A status callback as posted (the request; its delivery status is the log's). */
export interface Callback {
  readonly url: string
  readonly params: ReadonlyArray<readonly [string, string]>
}

export interface PostedCallback extends Callback {
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
  /** For an incoming call: the status and body of the applet URL's answer. */
  webhookStatus: number | undefined = undefined
  webhookBody: string | undefined = undefined
  media: MediaLeg | undefined = undefined
  /** The status callbacks, posted in order (`resend`, `forge` replay them). */
  readonly log: FakeCallbacks.CallbackLog<Callback>
  private readonly timeline: FakeTimeline.Timeline
  private readonly endedLatch = FakeTimeline.latch<Status>()
  private readonly mediaLatch = FakeTimeline.latch<MediaLeg>()
  private answeredAt: number | undefined = undefined

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
    this.timeline = FakeTimeline.make(secondMillis)
    this.log = FakeCallbacks.make((callback, signing) => this.deliver(callback, signing))
  }

  get isOver() {
    return FINAL.has(this.status)
  }

  get ended(): Promise<Status> {
    return this.endedLatch.promise
  }

  get mediaConnected(): Promise<MediaLeg> {
    return this.mediaLatch.promise
  }

  /** The callbacks delivered so far, in order, with the application's status. */
  get callbacks(): ReadonlyArray<PostedCallback> {
    return this.log.delivered().map((d) => ({ ...d.request, status: d.status }))
  }

  /**
   * A status callback: Exotel signs nothing, the URL's token is the proof. A forged one carries another
   * token, or none.
   */
  private deliver(callback: Callback, signing: FakeCallbacks.Signing): Promise<number> {
    if (signing === "good") return this.post(callback.url, callback.params)
    const url = new URL(callback.url)
    for (const name of [...url.searchParams.keys()].filter((k) => /token/i.test(k))) {
      if (signing === "wrong") url.searchParams.set(name, "not-the-token")
      else url.searchParams.delete(name)
    }
    return this.post(url.toString(), callback.params)
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
    return (await FakeHttp.postForm(url, params, { "user-agent": "Exotel/1.0" })).status
  }

  /** Queues the callback of `event` if subscribed; the end is always reported. */
  private notify(event: "answered" | "terminal" | "ringing") {
    const url = this.options.statusCallback
    if (url === undefined || (event !== "terminal" && !this.options.events.has(event))) return
    this.log.post({ url, params: this.callbackParams(event) })
  }

  /** Ends the call with `status` (once); `completed` counts the talk time since the answer. */
  end(status: Status, talkSeconds?: number) {
    if (this.isOver) return
    if (status === "completed" && this.answeredAt !== undefined) {
      this.durationSeconds = Math.max(1, talkSeconds ?? Math.round((Date.now() - this.answeredAt) / this.secondMillis))
    }
    this.status = status
    this.endedAt = Date.now()
    this.timeline.stop()
    if (this.media?.isOpen()) this.media.stop()
    this.notify("terminal")
    this.log.afterPosted(() => this.endedLatch.resolve(status))
  }

  /** The callee (or, inbound, Exotel's flow) picks up. */
  answer() {
    this.status = "in-progress"
    this.answeredAt = Date.now()
    const talk = this.behaviour.talkSeconds ?? 2
    this.timeline.schedule(talk, () => this.end("completed", talk))
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
    this.mediaLatch.resolve(leg)
    await leg.closed
    this.end("completed")
  }

  /** Plays an outbound call out. */
  async play(): Promise<void> {
    this.startedAt = Date.now()
    await this.timeline.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "failed") return this.end("failed")
    this.status = "ringing"
    this.notify("ringing")
    if (this.behaviour.answer === "no-answer") {
      await this.timeline.after(this.options.timeoutSeconds)
      return this.end("no-answer")
    }
    await this.timeline.after(this.behaviour.ringSeconds ?? 1)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("busy")
    this.answer()
    this.notify("answered")
    // The answered report is out before the media connects.
    await this.log.settled()
    if (this.isOver || this.options.streamUrl === undefined) return
    await this.stream(this.options.streamUrl)
  }

  /** The first callback posted again with a wrong token, or without one: the HTTP status. */
  forge(signature: "wrong" | "missing"): Promise<number> {
    return this.log.forge(signature)
  }

  /** The callbacks posted so far posted again (Exotel retries), in their order or reversed. */
  resend(order: "same" | "reverse"): Promise<ReadonlyArray<number>> {
    return this.log.resend(order)
  }
}

// ------------------------------------------------------------------------------------------- the server
