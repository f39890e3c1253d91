/**
 * The fake carrier's side of an audio stream: it dials the `<Stream>` URL as Plivo does, sends
 * `start` (with the `extraHeaders` back), then the caller's audio in 20 ms `media` frames and DTMF
 * digits; it "plays" what it receives in real time, answers a `checkpoint` with `playedStream` once
 * the audio queued before it has played, and honours `clearAudio` (drops what is queued, answers
 * `clearedAudio`; checkpoints dropped with it are never acknowledged, as Plivo documents).
 *
 * Once open, a test can make the caller speak and press keys (`StreamLeg`). Everything is recorded:
 * the messages received, the audio received and what of it was heard, the checkpoints reached.
 */
import { Socket } from "@effect/platform"
import { Effect, Fiber, Queue, Ref } from "effect"

export interface StreamScript {
  /** The caller's audio, sent in frames of `frameBytes` every `frameMillis`. */
  readonly audio: Uint8Array
  readonly frameBytes: number
  readonly frameMillis: number
  /** Digits pressed after the audio was sent. */
  readonly dtmf: string
  /** Play-out speed: 1 plays in real time, 10 ten times faster. */
  readonly playbackSpeed: number
}

export interface StreamRecord {
  readonly streamId: string
  /** Every message received, in order, as parsed JSON. */
  readonly received: Array<{ readonly event: string; readonly [key: string]: unknown }>
  /** The audio played to the caller (what was not cleared), in order. */
  readonly played: Array<Uint8Array>
  readonly checkpointsPlayed: Array<string>
  /** Every `playAudio` payload received, and those of them not dropped by a clear (what was heard). */
  readonly audioReceived: Array<Uint8Array>
  readonly heard: Array<Uint8Array>
  readonly clears: number
  /** Whether the socket is closed, and who closed it. */
  readonly closedBy: "carrier" | "server" | "error" | undefined
}

type Item = { readonly _tag: "Audio"; readonly data: Uint8Array; readonly millis: number } | { readonly _tag: "Checkpoint"; readonly name: string }

/** The caller's side of an open stream: what a test makes the person on the phone do. */
export interface StreamLeg {
  readonly url: string
  readonly encoding: "audio/x-mulaw" | "audio/x-l16"
  readonly sampleRate: number
  /** Sends audio (in the stream's encoding) in 20 ms frames. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  readonly record: { current: StreamRecord }
}

export const emptyRecord = (streamId: string): StreamRecord => ({
  streamId,
  received: [],
  played: [],
  checkpointsPlayed: [],
  audioReceived: [],
  heard: [],
  clears: 0,
  closedBy: undefined
})

type Outgoing = { readonly _tag: "Audio"; readonly data: Uint8Array } | { readonly _tag: "Dtmf"; readonly digit: string }

export interface StreamOpen {
  readonly url: string
  readonly callId: string
  readonly streamId: string
  readonly accountId: string
  readonly contentType: string
  readonly extraHeaders: string | undefined
}

/** Opens the stream and runs it until either side closes it (then `record.closedBy` is set); `opened` gets its leg. */
export const run = (
  open: StreamOpen,
  script: StreamScript,
  record: { current: StreamRecord },
  opened: (leg: StreamLeg) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const socket = yield* Socket.makeWebSocket(open.url, { openTimeout: "5 seconds" })
    const write = yield* socket.writer
    const [mime, rateText] = open.contentType.split(";rate=")
    const encoding = mime === "audio/x-mulaw" ? "audio/x-mulaw" : "audio/x-l16"
    const sampleRate = Number(rateText ?? "8000")
    const bytesPerMilli = (sampleRate * (encoding === "audio/x-mulaw" ? 1 : 2)) / 1000
    let sequence = 0
    const send = (message: Record<string, unknown>) => write(JSON.stringify({ sequenceNumber: ++sequence, ...message }))

    const queue = yield* Queue.unbounded<Item>()
    const playing = yield* Ref.make<Fiber.RuntimeFiber<void, unknown> | undefined>(undefined)
    const player = Effect.forever(Effect.gen(function*() {
      const item = yield* Queue.take(queue)
      if (item._tag === "Audio") {
        yield* Effect.sleep(item.millis / script.playbackSpeed)
        record.current.played.push(item.data)
      } else {
        record.current.checkpointsPlayed.push(item.name)
        yield* send({ event: "playedStream", streamId: open.streamId, name: item.name })
      }
    }))
    const startPlayer = Effect.flatMap(Effect.forkScoped(player), (f) => Ref.set(playing, f))

    // Messages are handled one at a time, in arrival order (a clear must not overtake what preceded it).
    const inbox = yield* Queue.unbounded<string | Uint8Array>()
    const handle = (data: string | Uint8Array) =>
      Effect.gen(function*() {
        const text = typeof data === "string" ? data : new TextDecoder().decode(data)
        let message: { event?: unknown; [key: string]: unknown }
        try {
          message = JSON.parse(text)
        } catch {
          return
        }
        if (typeof message.event !== "string") return
        record.current.received.push(message as StreamRecord["received"][number])
        if (message.event === "playAudio") {
          const media = message.media as { payload?: string } | undefined
          const bytes = new Uint8Array(Buffer.from(media?.payload ?? "", "base64"))
          record.current.audioReceived.push(bytes)
          record.current.heard.push(bytes)
          yield* Queue.offer(queue, { _tag: "Audio", data: bytes, millis: bytes.length / bytesPerMilli })
        } else if (message.event === "checkpoint" && typeof message.name === "string") {
          yield* Queue.offer(queue, { _tag: "Checkpoint", name: message.name })
        } else if (message.event === "clearAudio") {
          const current = yield* Ref.get(playing)
          if (current !== undefined) yield* Fiber.interrupt(current)
          const dropped = new Set<Uint8Array>()
          for (const item of yield* Queue.takeAll(queue)) if (item._tag === "Audio") dropped.add(item.data)
          record.current = {
            ...record.current,
            heard: record.current.heard.filter((chunk) => !dropped.has(chunk)),
            clears: record.current.clears + 1
          }
          yield* send({ event: "clearedAudio", streamId: open.streamId })
          yield* startPlayer
        }
      })

    let chunk = 0
    const sendAudio = (audio: Uint8Array) =>
      Effect.gen(function*() {
        for (let at = 0; at < audio.length; at += script.frameBytes) {
          yield* send({
            event: "media",
            streamId: open.streamId,
            media: {
              track: "inbound",
              timestamp: String(Date.now()),
              chunk: ++chunk,
              payload: Buffer.from(audio.subarray(at, at + script.frameBytes)).toString("base64")
            },
            extra_headers: open.extraHeaders ?? ""
          })
          yield* Effect.sleep(script.frameMillis)
        }
      })
    const pressKey = (digit: string) => send({ event: "dtmf", streamId: open.streamId, dtmf: { digit } })

    // The script first, then whatever the test makes the caller do, in order.
    const outgoing = yield* Queue.unbounded<Outgoing>()
    const caller = Effect.gen(function*() {
      yield* sendAudio(script.audio)
      for (const digit of script.dtmf) yield* pressKey(digit)
      yield* Effect.forever(Effect.flatMap(Queue.take(outgoing), (o) => (o._tag === "Audio" ? sendAudio(o.data) : pressKey(o.digit))))
    })
    const leg: StreamLeg = {
      url: open.url,
      encoding,
      sampleRate,
      speak: (data) => void outgoing.unsafeOffer({ _tag: "Audio", data }),
      press: (digit) => void outgoing.unsafeOffer({ _tag: "Dtmf", digit }),
      record
    }

    yield* startPlayer
    yield* Effect.forkScoped(Effect.forever(Effect.flatMap(Queue.take(inbox), handle)))
    yield* socket.runRaw((data) => Queue.offer(inbox, data), {
      onOpen: Effect.ignore(Effect.gen(function*() {
        yield* send({
          event: "start",
          start: {
            callId: open.callId,
            streamId: open.streamId,
            accountId: open.accountId,
            tracks: ["inbound"],
            mediaFormat: { encoding, sampleRate }
          },
          extra_headers: open.extraHeaders ?? ""
        })
        yield* Effect.forkIn(caller, scope)
        yield* opened(leg)
      }))
    }).pipe(
      Effect.tap(() => Effect.sync(() => (record.current = { ...record.current, closedBy: record.current.closedBy ?? "server" }))),
      Effect.tapError(() => Effect.sync(() => (record.current = { ...record.current, closedBy: record.current.closedBy ?? "error" }))),
      Effect.ignore
    )
  }).pipe(Effect.scoped)
