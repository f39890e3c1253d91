/**
 * The far end of a call's media stream, as a fake carrier plays it: a WebSocket client that connects
 * to the stream URL the application gave (as a carrier does once the call is answered), greets in the
 * provider's protocol, sends the caller's audio and keys, and plays what it is sent in real time
 * (scaled), through `FakePlayout`: audio is queued and played a frame per tick, a mark is reached once
 * the audio before it has played, a clear drops what has not played.
 *
 * What is the provider's own — its messages, how a reached mark is reported, what a clear answers — is
 * a `Protocol` the fake gives: the frames it reads (`text`, `binary`), how it reports a reached mark
 * (`reached`: a mark is its name; a provider whose marks carry more keeps them as JSON text) and its
 * greeting and controls once open (`opened`). The connection, the play-out, the
 * record of what was received, heard and reported, and the open/closed state are here.
 */
import WebSocket from "ws"
import { type AudioFormat, frameBytes as frameBytesOf } from "../AudioFormat.js"
import * as FakePlayout from "./FakePlayout.js"

/** What a media leg records, whatever the provider. */
export interface MediaLeg {
  /** The URL the stream connected to (the application's, with its token). */
  readonly url: string
  /** The stream's audio format, both ways. */
  readonly format: AudioFormat
  /** Everything the application sent as audio, played or not. */
  readonly received: () => Uint8Array
  /** What the caller heard: `received` less what a clear dropped. */
  readonly played: () => Uint8Array
  /** The marks reported back to the application, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  readonly isOpen: () => boolean
  /** Resolves when the socket has closed, whoever closed it. */
  readonly closed: Promise<void>
}

/** What a protocol uses of the open socket. */
export interface LegSocket {
  readonly sendText: (text: string) => void
  readonly sendJson: (message: unknown) => void
  readonly sendBinary: (data: Uint8Array) => void
  readonly close: (code?: number, reason?: string) => void
  readonly playout: FakePlayout.FakePlayout<string>
  /** Records a mark as reported to the application (what `marks()` lists). */
  readonly reportMark: (name: string) => void
  readonly isOpen: () => boolean
}

/** The provider's side of the stream's protocol. */
export interface Protocol<Controls> {
  /** A text frame from the application. */
  readonly text?: (text: string, socket: LegSocket) => void
  /** A binary frame from the application (default: audio, queued to play). */
  readonly binary?: (data: Uint8Array, socket: LegSocket) => void
  /** A mark was reached: report it the provider's way (and `reportMark` it). */
  readonly reached: (mark: string, socket: LegSocket) => void
  /** Audio just played (a provider that streams the outbound track back). */
  readonly played?: (chunk: Uint8Array, socket: LegSocket) => void
  /** Runs at the start of every play-out tick (a provider that reports an empty queue). */
  readonly beforeTick?: (socket: LegSocket) => void
  /** The socket is open: send the greeting, and make the leg's own controls (speak, press, stop, ...). */
  readonly opened: (socket: LegSocket) => Controls
}

export interface ConnectOptions<Controls> {
  readonly url: string
  readonly protocols?: string | ReadonlyArray<string>
  readonly headers?: Readonly<Record<string, string>>
  /** Gives up on a server that never completes the handshake. */
  readonly handshakeTimeoutMillis?: number
  readonly format: AudioFormat
  /** Bytes played per tick (default: 20 ms of `format`). */
  readonly frameBytes?: number
  /** Real milliseconds per tick (tests scale time down). */
  readonly frameMillis: number
  readonly protocol: Protocol<Controls>
}

/** Connects; resolves with the leg once open, rejects when the connection is refused or fails first. */
export const connect = <Controls>(options: ConnectOptions<Controls>): Promise<MediaLeg & Controls> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(options.url, options.protocols === undefined ? undefined : [...options.protocols].flat(), {
      ...(options.headers !== undefined ? { headers: { ...options.headers } } : {}),
      ...(options.handshakeTimeoutMillis !== undefined ? { handshakeTimeout: options.handshakeTimeoutMillis } : {})
    })
    const marks: Array<string> = []
    let open = false
    const send = (data: string | Uint8Array) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(data)
    }
    // The play-out calls back into the socket's protocol; both are made before either runs.
    let leg: LegSocket | undefined
    const playout = FakePlayout.make<string>({
      frameBytes: options.frameBytes ?? frameBytesOf(options.format, 20),
      frameMillis: options.frameMillis,
      reached: (marker) => options.protocol.reached(marker, leg!),
      ...(options.protocol.played !== undefined ? { played: (chunk: Uint8Array) => options.protocol.played!(chunk, leg!) } : {}),
      ...(options.protocol.beforeTick !== undefined ? { beforeTick: () => options.protocol.beforeTick!(leg!) } : {})
    })
    leg = {
      sendText: send,
      sendJson: (message) => send(JSON.stringify(message)),
      sendBinary: send,
      close: (code = 1000, reason) => socket.close(code, reason),
      playout,
      reportMark: (name) => void marks.push(name),
      isOpen: () => open
    }
    const closed = new Promise<void>((done) =>
      socket.on("close", () => {
        open = false
        playout.stop()
        done()
      })
    )
    socket.on("error", (error) => {
      if (!open) {
        playout.stop()
        reject(error)
      }
    })
    socket.on("unexpected-response", (_request, response) => {
      playout.stop()
      reject(new Error(`the media stream was refused with HTTP ${response.statusCode}`))
    })
    socket.on("message", (raw, isBinary) => {
      if (isBinary) {
        const data = new Uint8Array(Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw))
        if (options.protocol.binary !== undefined) options.protocol.binary(data, leg!)
        else playout.audio(data)
        return
      }
      options.protocol.text?.(raw.toString(), leg!)
    })
    socket.on("open", () => {
      open = true
      const controls = options.protocol.opened(leg!)
      resolve({
        ...controls,
        url: options.url,
        format: options.format,
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        clears: playout.clears,
        isOpen: () => open,
        closed
      })
    })
  })

/** `audio` cut in pieces of `size` bytes (the last one may be shorter). */
export const pieces = (audio: Uint8Array, size: number): Array<Uint8Array> => {
  const out: Array<Uint8Array> = []
  for (let offset = 0; offset < audio.length; offset += size) out.push(audio.subarray(offset, offset + size))
  return out
}
