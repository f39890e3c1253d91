/**
 * One call in the fake Telnyx, played out in (scaled) real time the way Call Control plays a call:
 * signed JSON webhooks posted in order to the call's webhook URL (`call.initiated`, `call.answered`,
 * `streaming.started`, `call.machine.detection.ended` when detection was asked, `streaming.stopped`,
 * `call.hangup` with `hangup_cause`, `hangup_source` and `sip_hangup_cause`); the media stream
 * connected when the call is placed or answered with a `stream_url`, started on answer. An outbound
 * callee hangs up after the talk time; an inbound call waits parked for an `answer` or `reject`.
 */
import * as FakeCallbacks from "@agentline/telephony-kit/testing/FakeCallbacks"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
import * as Crypto from "node:crypto"
import { sign } from "../Signature.js"
import { connect, type MediaFormat, type MediaLeg } from "./FakeMedia.js"

/** `invalid`: Telnyx refuses to dial the number at all (422), as for a number that cannot exist. */
export type Answer = "human" | "machine" | "busy" | "no-answer" | "rejected" | "unreachable" | "invalid"

/** How the callee (outbound) or the caller (inbound) behaves; times in Telnyx seconds. */
export interface Behaviour {
  readonly answer: Answer
  readonly ringSeconds?: number
  readonly talkSeconds?: number
}

export interface Account {
  readonly apiKey: string
  readonly privateKey: Crypto.KeyObject
}

export interface Stream {
  readonly url: string
  readonly bothTracks: boolean
  readonly format: MediaFormat
}

/** A webhook as posted (the request; its delivery status is the log's). */
export interface Webhook {
  readonly url: string
  readonly body: string
}

export interface PostedWebhook extends Webhook {
  readonly status: number
}

export interface Clock {
  /** Real milliseconds per Telnyx second. */
  readonly secondMillis: number
}

export type State = "parked" | "ringing" | "answered" | "hangup"

export class FakeCall {
  readonly callControlId = `v3:${Crypto.randomBytes(24).toString("base64url")}`
  readonly callLegId = Crypto.randomUUID()
  readonly callSessionId = Crypto.randomUUID()
  readonly startedAt = new Date()
  state: State
  hangupCause: string | undefined = undefined
  answeredAt: number | undefined = undefined
  endedAt: number | undefined = undefined
  /** Commands received for this call (`answer`, `hangup`, `reject`), in order. */
  readonly commands: Array<{ readonly action: string; readonly body: Record<string, any> }> = []
  media: MediaLeg | undefined = undefined
  /** Where the call was transferred (`actions/transfer`), once asked. */
  transferredTo: string | undefined = undefined
  /** The other leg of a transfer: the caller's leg on the new one, the new leg on the caller's. */
  bridged: FakeCall | undefined = undefined
  /** The webhooks, posted in order (`resend`, `forge` replay them). */
  readonly log: FakeCallbacks.CallbackLog<Webhook>
  private readonly timeline: FakeTimeline.Timeline
  private readonly endedLatch = FakeTimeline.latch<string>()
  private readonly mediaLatch = FakeTimeline.latch<MediaLeg>()

  constructor(
    readonly account: Account,
    readonly direction: "incoming" | "outgoing",
    readonly from: string,
    readonly to: string,
    readonly connectionId: string,
    readonly behaviour: Behaviour,
    readonly clock: Clock,
    public webhookUrl: string | undefined,
    public clientState: string | undefined,
    readonly options: { readonly stream?: Stream | undefined; readonly machineDetection: boolean; readonly timeoutSeconds: number }
  ) {
    this.state = direction === "incoming" ? "parked" : "ringing"
    this.timeline = FakeTimeline.make(clock.secondMillis)
    this.log = FakeCallbacks.make((webhook, signing) => this.post(webhook.url, webhook.body, signing))
  }

  get isOver() {
    return this.state === "hangup"
  }

  /** Resolves with the hang-up cause once every webhook of the call was posted. */
  get ended(): Promise<string> {
    return this.endedLatch.promise
  }

  /** Resolves once the call's media stream is connected and started (never, for a call without one). */
  get mediaConnected(): Promise<MediaLeg> {
    return this.mediaLatch.promise
  }

  /** The webhooks delivered so far, in order, with the application's status. */
  get webhooks(): ReadonlyArray<PostedWebhook> {
    return this.log.delivered().map((d) => ({ ...d.request, status: d.status }))
  }

  /** Seconds from the answer to the hang-up (or now), as Telnyx's call status reports them. */
  get durationSeconds() {
    if (this.answeredAt === undefined) return 0
    return Math.round(((this.endedAt ?? Date.now()) - this.answeredAt) / this.clock.secondMillis)
  }

  /** A webhook body of this call, as Telnyx writes it. */
  body(eventType: string, extra: Record<string, unknown> = {}, url = this.webhookUrl ?? "") {
    return JSON.stringify({
      data: {
        record_type: "event",
        event_type: eventType,
        id: Crypto.randomUUID(),
        occurred_at: new Date().toISOString(),
        payload: {
          call_control_id: this.callControlId,
          call_leg_id: this.callLegId,
          call_session_id: this.callSessionId,
          connection_id: this.connectionId,
          client_state: this.clientState ?? null,
          from: this.from,
          to: this.to,
          direction: this.direction,
          start_time: this.startedAt.toISOString(),
          ...extra
        }
      },
      meta: { attempt: 1, delivered_to: url }
    })
  }

  /** A POST signed as Telnyx signs (or with a wrong signature, or none): the response's status. */
  async post(url: string, body: string, signature: FakeCallbacks.Signing = "good"): Promise<number> {
    const timestamp = Math.floor(Date.now() / 1000)
    const key = signature === "wrong" ? Crypto.generateKeyPairSync("ed25519").privateKey : this.account.privateKey
    const signed = signature === "missing"
      ? {}
      : { "telnyx-timestamp": String(timestamp), "telnyx-signature-ed25519": sign(key, timestamp, Buffer.from(body, "utf8")) }
    return (await FakeHttp.postJson(url, body, { "user-agent": "telnyx-webhooks", ...signed })).status
  }

  /** Queues a webhook of this call, posted after the ones before it (none without a webhook URL). */
  notify(eventType: string, extra: Record<string, unknown> = {}, signature: "good" | "wrong" = "good") {
    const url = this.webhookUrl
    if (url === undefined) return
    this.log.post({ url, body: this.body(eventType, extra, url) }, signature)
  }

  /** Ends the call once: the stream stops, then `call.hangup`; resolves `ended` when all is posted. */
  end(cause: string, source: "caller" | "callee" | "unknown", sip: string) {
    if (this.isOver) return
    this.state = "hangup"
    this.hangupCause = cause
    this.endedAt = Date.now()
    this.timeline.stop()
    if (this.media?.isOpen()) {
      this.media.stop()
      // A stream that never started (the call ended before the answer) just closes.
      if (this.answeredAt !== undefined) this.notify("streaming.stopped", { stream_url: this.options.stream?.url })
    }
    this.notify("call.hangup", { state: "hangup", hangup_cause: cause, hangup_source: source, sip_hangup_cause: sip })
    this.log.afterPosted(() => this.endedLatch.resolve(cause))
    // Bridged legs end together: a leg still ringing is canceled, an answered one cleared.
    const other = this.bridged
    if (other !== undefined && !other.isOver) {
      if (other.state === "answered") other.end("normal_clearing", source, "200")
      else other.end("originator_cancel", "caller", "487")
    }
  }

  /** Hung up through the API (`actions/hangup`): a ringing call is canceled, an answered one cleared. */
  hangUpByCommand() {
    if (this.state === "answered") this.end("normal_clearing", "caller", "200")
    else this.end("originator_cancel", "caller", "487")
  }

  private async openStream() {
    const stream = this.options.stream
    if (stream === undefined) return
    this.media = await connect({
      url: stream.url,
      callControlId: this.callControlId,
      callSessionId: this.callSessionId,
      from: this.from,
      to: this.to,
      clientState: this.clientState,
      format: stream.format,
      bothTracks: stream.bothTracks,
      frameMillis: Math.max(1, this.clock.secondMillis / 50)
    }).catch(() => {
      this.notify("streaming.failed", { failure_reason: "connection_failed", stream_params: { stream_url: stream.url } })
      return undefined
    })
  }

  /** The call is picked up (by the callee, or by our `answer` command): talk, then the far end hangs up. */
  private async pickUp(who: "human" | "machine") {
    this.state = "answered"
    this.answeredAt = Date.now()
    this.notify("call.answered", { state: "answered" })
    if (this.media !== undefined) {
      this.media.start()
      this.mediaLatch.resolve(this.media)
      this.notify("streaming.started", { stream_url: this.options.stream?.url })
    }
    const talk = this.behaviour.talkSeconds ?? 2
    const hangsUp = this.direction === "incoming" ? "caller" : "callee"
    this.timeline.schedule(talk, () => this.end("normal_clearing", hangsUp, "200"))
    if (this.options.machineDetection) {
      await this.timeline.after(Math.min(0.5, talk / 2))
      if (!this.isOver) this.notify("call.machine.detection.ended", { result: who })
    }
  }

  /** Plays an outbound call out. */
  async play(): Promise<void> {
    this.notify("call.initiated", { state: "bridging" })
    await this.openStream()
    if (this.isOver) return void this.media?.stop()
    if (this.behaviour.answer === "unreachable") {
      await this.timeline.after(0.1)
      return this.end("not_found", "callee", "404")
    }
    if (this.behaviour.answer === "no-answer") {
      await this.timeline.after(this.options.timeoutSeconds)
      return this.end("timeout", "callee", "487")
    }
    await this.timeline.after(this.behaviour.ringSeconds ?? 1)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("user_busy", "callee", "486")
    if (this.behaviour.answer === "rejected") return this.end("call_rejected", "callee", "603")
    await this.pickUp(this.behaviour.answer === "machine" ? "machine" : "human")
  }

  /**
   * The new leg of a transfer of `caller` (`actions/transfer`): dialed as its callee behaves, bridged
   * to the caller once it rings (early media), then answered or hung up with the cause Telnyx gives.
   * A leg nobody takes leaves the caller's leg up, as Telnyx does; an answered one ends with it.
   */
  async playTransferLeg(caller: FakeCall): Promise<void> {
    this.notify("call.initiated", { state: "bridging" })
    await this.timeline.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "unreachable" || this.behaviour.answer === "invalid") return this.end("not_found", "callee", "404")
    this.notify("call.bridged", { state: "bridged" })
    caller.notify("call.bridged", { state: "bridged" })
    if (this.behaviour.answer === "no-answer") {
      await this.timeline.after(this.options.timeoutSeconds)
      return this.end("timeout", "callee", "487")
    }
    await this.timeline.after(this.behaviour.ringSeconds ?? 1)
    if (this.isOver) return
    if (this.behaviour.answer === "busy") return this.end("user_busy", "callee", "486")
    if (this.behaviour.answer === "rejected") return this.end("call_rejected", "callee", "603")
    // From the answer on, the two legs live and end together.
    this.bridged = caller
    caller.bridged = this
    await this.pickUp("human")
  }

  /** An inbound call arrives: `call.initiated`, parked until answered or rejected (or the caller gives up). */
  arrive(signature: "good" | "wrong" = "good") {
    this.notify("call.initiated", { state: "parked", caller_id_name: this.from, offered_codecs: "PCMU,PCMA" }, signature)
    const patience = this.behaviour.ringSeconds ?? this.options.timeoutSeconds
    this.timeline.schedule(patience, () => {
      if (this.state === "parked") this.end("originator_cancel", "caller", "487")
    })
  }

  /** `actions/answer` on a parked inbound call; its stream (if any) is connected and started. */
  async answerByCommand(stream: Stream | undefined) {
    ;(this.options as { stream?: Stream | undefined }).stream = stream
    await this.openStream()
    if (!this.isOver) await this.pickUp("human")
  }

  /**
   * The webhooks posted so far (those `which` keeps), again (Telnyx retries deliveries): in their
   * order or reversed.
   */
  resend(order: "same" | "reverse", which: (webhook: Webhook) => boolean = () => true): Promise<ReadonlyArray<number>> {
    return this.log.resend(order, which)
  }

  /** The first webhook posted again with a wrong signature, or without one: the HTTP status. */
  forge(signature: "wrong" | "missing"): Promise<number> {
    return this.log.forge(signature)
  }

  /** Resolves when every webhook queued so far has been posted. */
  settled(): Promise<void> {
    return this.log.settled()
  }
}
