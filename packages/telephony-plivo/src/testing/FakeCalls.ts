/**
 * How the fake carrier plays calls out, in the order and shape Plivo documents:
 *
 *   outbound  queued ─ ring_url (Event=Ring) ─┬─ answer_url (Event=StartApp) ─ run the XML ─ [machine_detection_url] ─ talk ─ hangup_url
 *                                             └─ hangup_url: busy | no-answer (after the ring timeout) | failed (invalid number)
 *   inbound   the number's application answer_url (Event=StartApp, CallStatus=ringing) ─ run the XML ─ talk ─ hangup_url
 *
 * Every callback is a signed form POST (the dialect's scheme, the account's auth token). `<Stream>`
 * opens the audio stream (`FakeStream.ts`); with `keepCallAlive` the call ends when the stream does
 * ("End Of XML Instructions"), otherwise when the callee hangs up.
 */
import { HttpClient, HttpClientRequest, type Socket } from "@effect/platform"
import { Deferred, Effect, Fiber } from "effect"
import * as Crypto from "node:crypto"
import type { PlivoDialect } from "../Dialect.js"
import * as Signature from "../Signature.js"
import * as FakeStream from "./FakeStream.js"

/** How a callee behaves; `invalid`: the API refuses the number; `talking`: a person who stays on the line (an hour). */
export type Callee = "human" | "busy" | "no-answer" | "failed" | "machine" | "invalid" | "talking"

export interface Timings {
  /** From the API request to the first ring. */
  readonly queueMillis: number
  /** How long the callee's phone rings before it is answered, or refused as busy. */
  readonly ringMillis: number
  /** The ring timeout of an unanswered call. */
  readonly noAnswerMillis: number
  /** How long the callee talks before hanging up. */
  readonly talkMillis: number
  /** How long answering machine detection takes. */
  readonly machineDetectionMillis: number
}

export interface Hangup {
  readonly status: string
  readonly cause: string
  readonly causeName: string
  readonly code: number
  readonly source: string
}

export const hangups = {
  callee: { status: "completed", cause: "NORMAL_CLEARING", causeName: "Normal Hangup", code: 4000, source: "Callee" },
  endOfXml: { status: "completed", cause: "NORMAL_CLEARING", causeName: "End Of XML Instructions", code: 4010, source: "Plivo" },
  apiAnswered: { status: "completed", cause: "NORMAL_CLEARING", causeName: "Normal Hangup", code: 4000, source: "API Request" },
  apiCancel: { status: "cancel", cause: "ORIGINATOR_CANCEL", causeName: "Canceled", code: 1000, source: "API Request" },
  busy: { status: "busy", cause: "USER_BUSY", causeName: "Busy Line", code: 3010, source: "Callee" },
  noAnswer: { status: "no-answer", cause: "NO_ANSWER", causeName: "No Answer", code: 3020, source: "Carrier" },
  failed: { status: "failed", cause: "UNALLOCATED_NUMBER", causeName: "Invalid Destination Address", code: 2000, source: "Carrier" },
  machine: { status: "completed", cause: "NORMAL_CLEARING", causeName: "Machine Detected", code: 4000, source: "Plivo" },
  answerXml: { status: "completed", cause: "NORMAL_CLEARING", causeName: "Hangup XML", code: 4000, source: "Answer XML" },
  caller: { status: "completed", cause: "NORMAL_CLEARING", causeName: "Normal Hangup", code: 4000, source: "Caller" },
  rejected: { status: "completed", cause: "CALL_REJECTED", causeName: "Rejected", code: 3030, source: "Answer XML" },
  answerUrlFailed: { status: "completed", cause: "NORMAL_TEMPORARY_FAILURE", causeName: "Invalid Answer XML", code: 5010, source: "Error" }
} satisfies Record<string, Hangup>

export interface FakeCall {
  readonly callUuid: string
  /** The Call API's request uuid (outbound calls only). */
  readonly requestUuid: string | undefined
  readonly direction: "outbound" | "inbound"
  readonly account: { readonly authId: string; readonly authToken: string }
  readonly from: string
  readonly to: string
  readonly callee: Callee
  readonly answerUrl: string
  readonly ringUrl: string | undefined
  readonly hangupUrl: string | undefined
  readonly machineDetection: string | undefined
  readonly machineDetectionUrl: string | undefined
  status: "queued" | "ringing" | "in-progress" | "ended"
  readonly startedAt: number
  answeredAt: number | undefined
  endedAt: number | undefined
  hangup: Hangup | undefined
  /** The XML our server answered with. */
  answerXml: string | undefined
  stream: { current: FakeStream.StreamRecord } | undefined
  fiber: Fiber.RuntimeFiber<void> | undefined
  streamFiber: Fiber.RuntimeFiber<void> | undefined
  readonly done: Deferred.Deferred<void>
  /** Resolved once the audio stream is open: the caller's side of it. */
  readonly media: Deferred.Deferred<FakeStream.StreamLeg>
  /** Resolved with our server's reply to the answer request. */
  readonly reply: Deferred.Deferred<Callback>
  /** Where a transfer's `<Dial>` went (`FakeDial.ts`), once it dialed. */
  dialedTo?: string | undefined
}

export interface Callback {
  readonly url: string
  readonly params: Readonly<Record<string, string>>
  /** The HTTP status our server answered, or `unreachable`. */
  readonly status: number | "unreachable"
  readonly body: string
}

export interface Player {
  readonly dialect: PlivoDialect
  readonly timings: Timings
  readonly stream: FakeStream.StreamScript
  /** Extra parameters the carrier adds to an inbound call's first request (Vobiz: ParentAuthID). */
  readonly inboundParams: (call: FakeCall) => Readonly<Record<string, string>>
  /** How the callee of a number a `<Dial>` calls behaves (E.164 with `+`, or a SIP URI). */
  readonly dialed: (to: string) => Callee
  readonly callbacks: Array<Callback>
  /** Runs a fiber of the fake (stopped when the fake stops), with its HTTP client and WebSocket. */
  readonly fork: (effect: Effect.Effect<void, never, Services>) => Effect.Effect<Fiber.RuntimeFiber<void>>
}

export type Services = HttpClient.HttpClient | Socket.WebSocketConstructor

const clock = (millis: number) => new Date(millis).toISOString().replace("T", " ").slice(0, 19)

const commonParams = (call: FakeCall): Record<string, string> => ({
  CallUUID: call.callUuid,
  From: call.from,
  To: call.to,
  Direction: call.direction,
  ...(call.requestUuid !== undefined
    ? { RequestUUID: call.requestUuid, ALegUUID: call.callUuid, ALegRequestUUID: call.requestUuid }
    : {})
})

/** Posts a signed (or, `unsigned`, bare) form callback; answers our server's reply (or `unreachable`). */
export const post = (player: Player, call: FakeCall, url: string, params: Record<string, string>, unsigned = false) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const all = { ...commonParams(call), ...params }
    const nonce = Array.from(Crypto.randomBytes(20), (b) => String(b % 10)).join("")
    const signed = Signature.sign(player.dialect.signature, call.account.authToken, { method: "POST", url, params: Object.entries(all) }, nonce)
    const response = yield* client.execute(
      HttpClientRequest.post(url).pipe(
        HttpClientRequest.setHeaders({ ...(unsigned ? {} : signed), "user-agent": `${player.dialect.displayName}HTTP (fake)` }),
        HttpClientRequest.bodyUrlParams(all)
      )
    ).pipe(Effect.flatMap((r) => Effect.map(r.text, (body) => ({ status: r.status, body }))), Effect.scoped, Effect.timeout("10 seconds"), Effect.option)
    const result: Callback = response._tag === "Some"
      ? { url, params: all, status: response.value.status, body: response.value.body }
      : { url, params: all, status: "unreachable", body: "" }
    player.callbacks.push(result)
    return result
  })

/** Ends a call once: closes its stream and posts the hang-up notice with its record. */
export const end = (player: Player, call: FakeCall, hangup: Hangup) =>
  Effect.uninterruptible(Effect.gen(function*() {
    if (call.status === "ended") return
    const answered = call.answeredAt !== undefined
    call.status = "ended"
    call.hangup = hangup
    call.endedAt = Date.now()
    // A stream still open is closed by the carrier (one that ended on its own ended this call).
    if (call.stream !== undefined && call.stream.current.closedBy === undefined) {
      call.stream.current = { ...call.stream.current, closedBy: "carrier" }
      if (call.streamFiber !== undefined) yield* Fiber.interrupt(call.streamFiber)
    }
    const duration = answered ? String(Math.max(1, Math.round((call.endedAt - call.answeredAt!) / 1000))) : "0"
    yield* post(player, call, call.hangupUrl ?? call.answerUrl, {
      Event: "Hangup",
      CallStatus: hangup.status,
      Duration: duration,
      BillDuration: duration,
      HangupCause: hangup.cause,
      HangupCauseName: hangup.causeName,
      HangupCauseCode: String(hangup.code),
      HangupSource: hangup.source,
      StartTime: clock(call.startedAt),
      ...(answered ? { AnswerTime: clock(call.answeredAt!) } : {}),
      EndTime: clock(call.endedAt)
    })
    yield* Deferred.succeed(call.done, undefined)
  }))

const attribute = (tag: string, name: string) => tag.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1]
const unescape = (text: string) =>
  text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&amp;/g, "&")

/** Runs the answer XML: a stream, a wait, a hang-up; anything else Plivo would refuse ends the call. */
const runXml = (player: Player, call: FakeCall, reply: Callback, talk: boolean) =>
  Effect.gen(function*() {
    call.answerXml = reply.body
    yield* Deferred.succeed(call.reply, reply)
    const xml = reply.body
    if (reply.status !== 200 || !/<Response>[\s\S]*<\/Response>/.test(xml)) return yield* end(player, call, hangups.answerUrlFailed)
    const hangupTag = xml.match(/<Hangup\b[^>]*\/?>/)?.[0]
    const stream = xml.match(/<Stream\b([^>]*)>([^<]*)<\/Stream>/)
    if (stream === null && hangupTag !== undefined) {
      const reason = attribute(hangupTag, "reason")
      return yield* end(player, call, reason === "rejected" ? hangups.rejected : reason === "busy" ? { ...hangups.rejected, cause: "USER_BUSY", causeName: "Busy Line" } : hangups.answerXml)
    }
    if (call.answeredAt === undefined) {
      call.answeredAt = Date.now()
      call.status = "in-progress"
    }
    if (stream !== null) {
      const record = { current: FakeStream.emptyRecord(Crypto.randomUUID()) }
      call.stream = record
      const keepCallAlive = attribute(stream[0], "keepCallAlive") === "true"
      const streamed = FakeStream.run({
        url: unescape(stream[2]!.trim()),
        callId: call.callUuid,
        streamId: record.current.streamId,
        accountId: call.account.authId,
        contentType: attribute(stream[0], "contentType") ?? "audio/x-l16;rate=8000",
        extraHeaders: attribute(stream[0], "extraHeaders")
      }, player.stream, record, (leg) => Deferred.succeed(call.media, leg)).pipe(
        // With keepCallAlive the rest of the XML (none) runs once the stream ends: the call is over.
        Effect.zipRight(keepCallAlive ? end(player, call, hangups.endOfXml) : Effect.void)
      )
      call.streamFiber = yield* player.fork(streamed)
    }
    if (talk) {
      yield* Effect.sleep(call.callee === "talking" ? 3_600_000 : player.timings.talkMillis)
      yield* end(player, call, hangups.callee)
    } else {
      yield* Deferred.await(call.done)
    }
  })

/** The life of an outbound call from the moment the API accepted it. */
export const playOutbound = (player: Player, call: FakeCall) =>
  Effect.gen(function*() {
    const t = player.timings
    yield* Effect.sleep(t.queueMillis)
    call.status = "ringing"
    if (call.ringUrl !== undefined) yield* post(player, call, call.ringUrl, { Event: "Ring", CallStatus: "ringing" })
    switch (call.callee) {
      case "busy":
        yield* Effect.sleep(t.ringMillis)
        return yield* end(player, call, hangups.busy)
      case "no-answer":
        yield* Effect.sleep(t.noAnswerMillis)
        return yield* end(player, call, hangups.noAnswer)
      case "failed":
        return yield* end(player, call, hangups.failed)
      default:
        break
    }
    yield* Effect.sleep(t.ringMillis)
    call.answeredAt = Date.now()
    call.status = "in-progress"
    const reply = yield* post(player, call, call.answerUrl, { Event: "StartApp", CallStatus: "in-progress" })
    const detection = call.callee === "machine" && call.machineDetection !== undefined && call.machineDetectionUrl !== undefined
      ? Effect.gen(function*() {
        yield* Effect.sleep(t.machineDetectionMillis)
        yield* post(player, call, call.machineDetectionUrl!, {
          Event: "MachineDetection",
          Machine: "true",
          IfMachine: call.machineDetection === "hangup" ? "hangup" : "continue",
          CallStatus: "in-progress"
        })
        // A machine's greeting outlasts the detection: the call ends by the verdict, or goes on.
        if (call.machineDetection === "hangup") return yield* end(player, call, hangups.machine)
        yield* Effect.sleep(t.talkMillis)
        yield* end(player, call, hangups.callee)
      })
      : Effect.void
    const detecting = call.callee === "machine" && call.machineDetection !== undefined && call.machineDetectionUrl !== undefined
    yield* Effect.zip(runXml(player, call, reply, !detecting), detection, { concurrent: true })
  })

/** The life of an inbound call: the application is asked what to do, then the caller talks. */
export const playInbound = (player: Player, call: FakeCall) =>
  Effect.gen(function*() {
    const reply = yield* post(player, call, call.answerUrl, { Event: "StartApp", CallStatus: "ringing", ...player.inboundParams(call) })
    yield* runXml(player, call, reply, true)
  })
