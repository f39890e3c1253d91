/**
 * One call of the fake Acme, played out in (scaled) real time with the kit's fake-carrier blocks: its
 * time (`FakeTimeline`), its signed status callbacks posted in order (`FakeCallbacks`), and, once
 * answered, its media stream (`FakeMediaLeg`) in Acme's protocol:
 *
 *   to the application    start {stream_id, call_id, format, params} · media {payload} · dtmf {digit} · mark {name} · stop
 *   from the application  media {payload} · mark {name} · clear (the marks it dropped come back) · hangup
 *
 * An outbound call reports `initiated`, `ringing`, then `answered` and `completed` (with the talk time),
 * or `busy`, `no-answer`, `failed`, `machine`; a hang-up through the API ends it `completed` once
 * answered, `canceled` before.
 */
import * as FakeCallbacks from "@agentline/telephony-kit/testing/FakeCallbacks"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import * as FakeMediaLeg from "@agentline/telephony-kit/testing/FakeMediaLeg"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
import * as Crypto from "node:crypto"
import { sign } from "../Callbacks.js"

/** How the callee (outbound) or the caller (inbound) behaves; times in Acme seconds. */
export interface Behaviour {
  readonly answer: "human" | "machine" | "busy" | "no-answer" | "failed" | "invalid"
  readonly talkSeconds?: number
}

export type Status = "queued" | "initiated" | "ringing" | "answered" | "completed" | "busy" | "no-answer" | "machine" | "failed" | "canceled"

const FINAL = new Set<Status>(["completed", "busy", "no-answer", "machine", "failed", "canceled"])

/** Acme streams 16-bit linear PCM at 16 kHz. */
export const FORMAT = { encoding: "l16le", sampleRate: 16000 } as const

export type MediaLeg = FakeMediaLeg.MediaLeg & {
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  readonly stop: () => void
}

/** A status callback as posted. */
export interface Callback {
  readonly url: string
  readonly body: string
}

/** Connects an answered call's stream to `url`, speaking Acme's protocol; `hangup` from the application ends the call. */
const connect = (input: {
  readonly url: string
  readonly callId: string
  readonly params: Readonly<Record<string, string>>
  readonly frameMillis: number
  readonly hangUp: () => void
}): Promise<MediaLeg> => {
  const streamId = Crypto.randomUUID()
  const reached = (socket: FakeMediaLeg.LegSocket, name: string) => {
    socket.reportMark(name)
    socket.sendJson({ event: "mark", name })
  }
  return FakeMediaLeg.connect({
    url: input.url,
    format: FORMAT,
    frameMillis: input.frameMillis,
    protocol: {
      binary: (_data, socket) => socket.close(1003, "Acme streams are text only"),
      text: (text, socket) => {
        const message = FakeJson.parse(text)
        switch (FakeJson.text(message, "event")) {
          case "media":
            return socket.playout.audio(new Uint8Array(Buffer.from(FakeJson.text(message, "payload") ?? "", "base64")))
          case "mark":
            return socket.playout.mark(FakeJson.text(message, "name") ?? "")
          case "clear":
            for (const name of socket.playout.clear()) reached(socket, name)
            return
          case "hangup":
            return input.hangUp()
        }
      },
      reached: (name, socket) => reached(socket, name),
      opened: (socket) => {
        socket.sendJson({ event: "start", stream_id: streamId, call_id: input.callId, format: { encoding: FORMAT.encoding, rate: FORMAT.sampleRate }, params: input.params })
        return {
          speak: (audio: Uint8Array) => {
            for (const payload of FakeMediaLeg.pieces(audio, 640)) socket.sendJson({ event: "media", payload: Buffer.from(payload).toString("base64") })
          },
          press: (digit: string) => socket.sendJson({ event: "dtmf", digit }),
          stop: () => {
            socket.sendJson({ event: "stop" })
            socket.close(1000)
          }
        }
      }
    }
  })
}

/** A new call id, as Acme names calls. */
export const newCallId = () => `CA${Crypto.randomBytes(12).toString("hex")}`

export class FakeAcmeCall {
  readonly id: string
  status: Status = "queued"
  durationSeconds = 0
  media: MediaLeg | undefined = undefined
  /** The status callbacks, posted in order (`resend`, `forge` replay them). */
  readonly log: FakeCallbacks.CallbackLog<Callback>
  private readonly timeline: FakeTimeline.Timeline
  private readonly endedLatch = FakeTimeline.latch<Status>()
  private readonly mediaLatch = FakeTimeline.latch<MediaLeg>()
  private answeredAt: number | undefined = undefined

  constructor(
    readonly secret: string,
    readonly behaviour: Behaviour,
    readonly secondMillis: number,
    readonly options: {
      readonly id?: string
      readonly statusCallback: string | undefined
      readonly actions: ReadonlyArray<Readonly<Record<string, unknown>>>
    }
  ) {
    this.id = options.id ?? newCallId()
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

  /** A callback signed with the account's webhook secret, another one, or none. */
  private async deliver(callback: Callback, signing: FakeCallbacks.Signing): Promise<number> {
    const rawBody = new TextEncoder().encode(callback.body)
    const secret = signing === "wrong" ? "not-the-webhook-secret" : this.secret
    const headers = signing === "missing" ? {} : { "acme-signature": sign(secret, Math.floor(Date.now() / 1000), rawBody) }
    return (await FakeHttp.postJson(callback.url, callback.body, headers)).status
  }

  private report(status: Status) {
    this.status = status
    const url = this.options.statusCallback
    if (url === undefined) return
    const final = FINAL.has(status)
    this.log.post({
      url,
      body: JSON.stringify({
        call_id: this.id,
        status,
        timestamp: new Date().toISOString(),
        ...(final ? { duration: this.durationSeconds } : {})
      })
    })
  }

  /** Ends the call once; `completed` counts the talk time since the answer. */
  end(status: Status, talkSeconds?: number) {
    if (this.isOver) return
    if (status === "completed" && this.answeredAt !== undefined) {
      this.durationSeconds = talkSeconds ?? Math.max(1, Math.round((Date.now() - this.answeredAt) / this.secondMillis))
    }
    this.timeline.stop()
    if (this.media?.isOpen()) this.media.stop()
    this.report(status)
    this.log.afterPosted(() => this.endedLatch.resolve(status))
  }

  /** Hung up through the API: an answered call completes, a ringing one is canceled. */
  hangUp() {
    this.end(this.answeredAt !== undefined ? "completed" : "canceled")
  }

  /** The callee (or, inbound, the caller) is on the line: talk, then hang up; the flow's stream connects. */
  answer() {
    this.answeredAt = Date.now()
    this.report("answered")
    const talk = this.behaviour.talkSeconds ?? 2
    this.timeline.schedule(talk, () => this.end("completed", talk))
    void this.runActions()
  }

  /** Runs the call flow: a `stream` action connects the media stream (the call ends with it). */
  private async runActions() {
    const stream = this.options.actions.find((a) => a.type === "stream")
    const url = FakeJson.text(stream, "url")
    if (url === undefined) return
    const params: Record<string, string> = {}
    const given = FakeJson.at(stream, "params")
    if (FakeJson.isObject(given)) for (const [k, v] of Object.entries(given)) if (typeof v === "string") params[k] = v
    const leg = await connect({ url, callId: this.id, params, frameMillis: Math.max(1, this.secondMillis / 50), hangUp: () => this.hangUp() })
      .catch(() => undefined)
    if (leg === undefined || this.isOver) return leg?.stop()
    this.media = leg
    this.mediaLatch.resolve(leg)
    await leg.closed
    this.end("completed")
  }

  /** Plays an outbound call out. */
  async play() {
    this.report("initiated")
    await this.timeline.after(0.1)
    if (this.isOver) return
    if (this.behaviour.answer === "failed") return this.end("failed")
    this.report("ringing")
    await this.timeline.after(this.behaviour.answer === "no-answer" ? 30 : 1)
    if (this.isOver) return
    if (this.behaviour.answer === "no-answer") return this.end("no-answer")
    if (this.behaviour.answer === "busy") return this.end("busy")
    if (this.behaviour.answer === "machine") {
      this.answeredAt = Date.now()
      return this.end("machine")
    }
    this.answer()
  }
}
