/**
 * A fake Exotel on 127.0.0.1 for tests, faithful to what Exotel documents and the adapter relies on:
 *
 * - REST (Voice API v1, HTTP Basic with the API key and token, 401 otherwise; form fields in, JSON
 *   out): `POST /v1/Accounts/{sid}/Calls/connect.json` ("Connect Voice AI": `From` dialed, `CallerId`
 *   an ExoPhone of the account, `StreamUrl` a ws(s) URL, `StreamType=bidirectional`, `StatusCallback`,
 *   `StatusCallbackEvents[n]`), `GET /v1/Accounts/{sid}/Calls/{CallSid}.json` (call details, 404 for a
 *   call it does not know); no request ends a call (Exotel documents none: another method is a 405);
 *   errors as `{"RestException": {"Status", "Message"}}`;
 * - calls played out in (scaled) real time: ringing, answered, talk, hang-up; busy; no-answer; failed.
 *   Status callbacks are form posts to the `StatusCallback` URL exactly as given (query included): the
 *   `answered` event if subscribed, then the end (`terminal`) with `ConversationDuration`. Exotel signs
 *   nothing: whatever the URL carries is the proof;
 * - the answered call's media: a WebSocket client to `StreamUrl` speaking the Voicebot protocol
 *   (`connected`, `start` with the URL's query as `custom_parameters`, 100 ms chunks of base64 16-bit
 *   PCM at 8 kHz or the URL's `sample-rate`, `dtmf`, `stop`), playing what it is sent in real time:
 *   `media` is queued, a `mark` comes back once the audio before it has played, `clear` drops what is
 *   queued (and sends back the marks it dropped). Chunks that are not whole 20 ms frames are counted
 *   (`ragged`): Exotel plays them with gaps;
 * - incoming calls: an ExoPhone is assigned a flow whose Voicebot applet has a URL (`route`); a call
 *   to it asks that URL for the stream URL with a GET and the call's details as query parameters
 *   (`CallSid`, `CallFrom`, `CallTo`, `Direction`, ...), with the URL's user name and password as HTTP
 *   Basic credentials, as Exotel's applets do; `{"url": "wss://..."}` connects the call's media,
 *   anything else ends the applet (and, the fake's flow having nothing after it, the call).
 *
 * Knobs: `behave(number, behaviour)`, `failNext` for 429/5xx, `secondMillis` to scale time.
 */
import * as FakePlayout from "@agentline/core/testing/FakePlayout"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import WebSocket from "ws"

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

const sidOf = () => Crypto.randomBytes(16).toString("hex")

/** Exotel's time format, `YYYY-MM-DD HH:mm:ss`. */
const timestamp = (at: number) => new Date(at).toISOString().replace("T", " ").slice(0, 19)


// ------------------------------------------------------------------------------------------- the media leg

export interface MediaLeg {
  readonly streamSid: string
  readonly url: string
  readonly sampleRate: number
  /** Everything the server sent as audio (16-bit PCM little-endian), played or not. */
  readonly received: () => Uint8Array
  /** What the callee heard: `received` less what a `clear` dropped. */
  readonly played: () => Uint8Array
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  /** Audio chunks that were not whole 20 ms frames (Exotel plays them with gaps). */
  readonly ragged: () => number
  /** The person speaks: PCM (16-bit little-endian) sent in 100 ms `media` chunks. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** The call ended on Exotel's side: `stop`, then the socket closes. */
  readonly stop: () => void
  readonly closed: Promise<void>
  readonly isOpen: () => boolean
}

export const connectMedia = (input: {
  readonly url: string
  readonly callSid: string
  readonly accountSid: string
  readonly from: string
  readonly to: string
  /** Real milliseconds per 20 ms of audio. */
  readonly frameMillis: number
}): Promise<MediaLeg> =>
  new Promise((resolve, reject) => {
    const parsed = new URL(input.url)
    const sampleRate = Number(parsed.searchParams.get("sample-rate") ?? 8000)
    const customParameters: Record<string, string> = {}
    for (const [k, v] of parsed.searchParams) if (k !== "sample-rate") customParameters[k] = v
    const frameBytes = (sampleRate / 50) * 2
    const socket = new WebSocket(input.url)
    const streamSid = sidOf()
    const marks: Array<string> = []
    let ragged = 0
    let sequence = 0
    let chunk = 0
    let open = false
    const send = (message: Record<string, unknown>) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ ...message, sequence_number: String(++sequence) }))
    }
    const echo = (name: string) => {
      marks.push(name)
      send({ event: "mark", stream_sid: streamSid, mark: { name } })
    }
    const playout = FakePlayout.make<string>({ frameBytes, frameMillis: input.frameMillis, reached: echo })
    const closed = new Promise<void>((done) =>
      socket.on("close", () => {
        open = false
        playout.stop()
        done()
      })
    )
    socket.on("error", (error) => {
      if (!open) reject(error)
    })
    socket.on("unexpected-response", (_request, response) => reject(new Error(`media stream refused with HTTP ${response.statusCode}`)))
    socket.on("message", (raw, isBinary) => {
      if (isBinary) return socket.close(1003, "Exotel streams are text only")
      let message: any
      try {
        message = JSON.parse(raw.toString())
      } catch {
        return socket.close(1007, "not JSON")
      }
      const sid = message?.stream_sid ?? message?.streamSid
      if (sid !== undefined && sid !== streamSid) return
      switch (message?.event) {
        case "media": {
          const audio = new Uint8Array(Buffer.from(String(message.media?.payload ?? ""), "base64"))
          if (audio.length % frameBytes !== 0) ragged++
          playout.audio(audio)
          break
        }
        case "mark":
          playout.mark(String(message.mark?.name ?? ""))
          break
        case "clear":
          // The marks a clear dropped come back, as Twilio's do.
          for (const name of playout.clear()) echo(name)
          break
      }
    })
    socket.on("open", () => {
      open = true
      send({ event: "connected" })
      send({
        event: "start",
        stream_sid: streamSid,
        start: {
          stream_sid: streamSid,
          call_sid: input.callSid,
          account_sid: input.accountSid,
          from: input.from,
          to: input.to,
          custom_parameters: customParameters,
          media_format: { encoding: "base64", sample_rate: String(sampleRate), bit_rate: "128kbps" }
        }
      })
      const chunkBytes = frameBytes * 5
      resolve({
        streamSid,
        url: input.url,
        sampleRate,
        received: playout.received,
        played: playout.played,
        marks: () => [...marks],
        clears: playout.clears,
        ragged: () => ragged,
        speak: (audio) => {
          for (let offset = 0; offset < audio.length; offset += chunkBytes) {
            chunk++
            send({
              event: "media",
              stream_sid: streamSid,
              media: {
                chunk: String(chunk),
                timestamp: String(chunk * 100),
                payload: Buffer.from(audio.subarray(offset, offset + chunkBytes)).toString("base64")
              }
            })
          }
        },
        press: (digit) => send({ event: "dtmf", stream_sid: streamSid, dtmf: { digit, duration: "100" } }),
        stop: () => {
          send({ event: "stop", stream_sid: streamSid, stop: { call_sid: input.callSid, account_sid: input.accountSid, reason: "callended" } })
          socket.close(1000)
        },
        closed,
        isOpen: () => open
      })
    })
  })

// ------------------------------------------------------------------------------------------------ a call

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

interface Failure {
  readonly status: number
  count: number
}

const PHONE = /^(\+[1-9][0-9]{7,14}|0[1-9][0-9]{9})$/

export interface FakeExotel {
  /** The API base URL to give the adapter (`AGENTLINE_EXOTEL_API_URL`). */
  readonly url: string
  readonly call: (sid: string) => ExotelCall | undefined
  readonly calls: () => ReadonlyArray<ExotelCall>
  /** The account of `sid` owns `number` as an ExoPhone (usable as `CallerId`, reachable by callers). */
  readonly addExoPhone: (sid: string, number: string) => void
  readonly behave: (number: string, behaviour: Behaviour) => void
  readonly failNext: (status: number, count?: number) => void
  /** Assigns `number` a flow whose Voicebot applet URL is `url` (credentials included), or none. */
  readonly route: (number: string, url: string | null) => void
  /** The Voicebot applet URL calls to `number` reach now, without its credentials. */
  readonly voiceUrl: (number: string) => string | null
  /** A caller dials `to`: its flow's applet URL is asked for a stream URL; undefined without a flow. */
  readonly placeInbound: (input: {
    readonly to: string
    readonly from: string
    readonly behaviour?: Behaviour
    /** Send another Basic password than the URL's (a forged request). */
    readonly password?: string
  }) => Promise<ExotelCall | undefined>
  readonly close: () => Promise<void>
}

export const start = async (options: {
  readonly accounts: ReadonlyArray<Account>
  /** Real milliseconds per Exotel second (default 1000). */
  readonly secondMillis?: number
}): Promise<FakeExotel> => {
  const secondMillis = options.secondMillis ?? 1000
  const accounts = new Map(options.accounts.map((a) => [a.sid, a]))
  const exoPhones = new Map<string, string>()
  const flows = new Map<string, string>()
  const calls = new Map<string, ExotelCall>()
  const behaviours = new Map<string, Behaviour>()
  const failures: Array<Failure> = []

  const json = (response: Http.ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      response.writeHead(status)
      return response.end()
    }
    response.writeHead(status, { "content-type": "application/json" })
    response.end(JSON.stringify(body))
  }
  const error = (response: Http.ServerResponse, status: number, message: string) =>
    json(response, status, { RestException: { Status: status, Message: message } })

  const createCall = (response: Http.ServerResponse, account: Account, form: URLSearchParams) => {
    const to = form.get("From") ?? ""
    const callerId = form.get("CallerId") ?? ""
    const stream = form.get("StreamUrl") ?? ""
    if (to === "") return error(response, 400, "From is required")
    if (callerId === "") return error(response, 400, "CallerId is required")
    if (exoPhones.get(callerId) !== account.sid) return error(response, 400, `CallerId ${callerId} is not an ExoPhone of this account`)
    if (!/^wss?:\/\//.test(stream) || stream.length > 600) return error(response, 400, "StreamUrl must be a ws:// or wss:// URL of at most 600 characters")
    if (form.get("StreamType") !== "bidirectional" && form.get("StreamType") !== "unidirectional") {
      return error(response, 400, "StreamType must be bidirectional or unidirectional")
    }
    const behaviour = behaviours.get(to) ?? { answer: "human" }
    if (!PHONE.test(to) || behaviour.answer === "invalid") return error(response, 400, `${to} is not a valid phone number`)
    const events = new Set<string>()
    for (const [name, value] of form) if (name.startsWith("StatusCallbackEvents")) events.add(value)
    const call = new ExotelCall(account, to, callerId, "outbound-api", behaviour, secondMillis, {
      streamUrl: stream,
      statusCallback: form.get("StatusCallback") ?? undefined,
      events,
      customField: form.get("CustomField") ?? undefined,
      timeoutSeconds: Number(form.get("TimeOut") ?? 60)
    })
    calls.set(call.sid, call)
    json(response, 200, call.details())
    void call.play()
  }

  const route = (request: Http.IncomingMessage, response: Http.ServerResponse, raw: string) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const match = /^\/v1\/Accounts\/([^/]+)\/Calls(?:\/([^/.]+))?(\.json)?\/?$/.exec(url.pathname)
    if (match === null) return error(response, 404, "The requested resource was not found")
    const account = accounts.get(decodeURIComponent(match[1]!))
    const [scheme, encoded] = (request.headers.authorization ?? "").split(" ")
    const [key, ...token] = Buffer.from(encoded ?? "", "base64").toString("utf8").split(":")
    if (scheme !== "Basic" || account === undefined || key !== account.apiKey || token.join(":") !== account.apiToken) {
      return error(response, 401, "Authentication is required to view this page.")
    }
    const failure = failures.find((f) => f.count > 0)
    if (failure !== undefined) {
      failure.count--
      return error(response, failure.status, failure.status === 429 ? "Too many requests" : "Internal server error")
    }
    const which = match[2]
    if (which === "connect") {
      if (request.method !== "POST") return error(response, 405, "Method not allowed")
      return createCall(response, account, new URLSearchParams(raw))
    }
    if (which === undefined) return error(response, 405, "Method not allowed")
    const call = calls.get(which)
    if (call === undefined || call.account.sid !== account.sid) return error(response, 404, "Call not found")
    if (request.method === "GET") return json(response, 200, call.details())
    return error(response, 405, "Method not allowed")
  }

  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => route(request, response, Buffer.concat(chunks).toString("utf8")))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as AddressInfo

  const withoutCredentials = (url: string) => {
    const parsed = new URL(url)
    parsed.username = ""
    parsed.password = ""
    return parsed.toString()
  }

  return {
    url: `http://127.0.0.1:${address.port}`,
    call: (sid) => calls.get(sid),
    calls: () => [...calls.values()],
    addExoPhone: (sid, number) => void exoPhones.set(number, sid),
    behave: (number, behaviour) => void behaviours.set(number, behaviour),
    failNext: (status, count = 1) => void failures.push({ status, count }),
    route: (number, url) => void (url === null ? flows.delete(number) : flows.set(number, url)),
    voiceUrl: (number) => {
      const url = flows.get(number)
      return url === undefined ? null : withoutCredentials(url)
    },
    placeInbound: async (input) => {
      const flowUrl = flows.get(input.to)
      const owner = accounts.get(exoPhones.get(input.to) ?? "")
      if (flowUrl === undefined || owner === undefined) return undefined
      const call = new ExotelCall(owner, input.to, input.from, "inbound", input.behaviour ?? { answer: "human", talkSeconds: 1000 }, secondMillis, {
        events: new Set(),
        timeoutSeconds: 60
      })
      calls.set(call.sid, call)
      call.startedAt = Date.now()
      // The flow answers the call, then runs its Voicebot applet.
      call.answer()
      const applet = new URL(flowUrl)
      const user = decodeURIComponent(applet.username)
      const password = input.password ?? decodeURIComponent(applet.password)
      const target = new URL(withoutCredentials(flowUrl))
      const details: Record<string, string> = {
        CallSid: call.sid,
        CallFrom: input.from,
        CallTo: input.to,
        Direction: "incoming",
        Created: timestamp(call.createdAt),
        CurrentTime: timestamp(Date.now()),
        CallType: "call-attempt",
        From: input.from,
        To: input.to
      }
      for (const [k, v] of Object.entries(details)) target.searchParams.set(k, v)
      try {
        const response = await fetch(target, {
          method: "GET",
          headers: {
            "user-agent": "Exotel/1.0",
            ...(user !== "" || password !== "" ? { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` } : {})
          }
        })
        call.webhookStatus = response.status
        call.webhookBody = await response.text()
      } catch {
        call.webhookStatus = 0
      }
      let stream: string | undefined
      try {
        const body = JSON.parse(call.webhookBody ?? "")
        if (typeof body?.url === "string" && /^wss?:\/\//.test(body.url)) stream = body.url
      } catch {
        stream = undefined
      }
      if (call.webhookStatus !== 200 || stream === undefined) {
        // The applet fails; the flow has nothing after it: Exotel hangs up.
        call.end("completed")
        return call
      }
      void call.stream(stream)
      return call
    },
    close: async () => {
      for (const call of calls.values()) call.end(call.status === "in-progress" ? "completed" : "canceled")
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    }
  }
}
