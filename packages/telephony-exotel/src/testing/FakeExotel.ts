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
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { type Account, type Behaviour, ExotelCall, timestamp } from "./FakeExotelCall.js"

export type { Account, Answer, Behaviour, PostedCallback, Status } from "./FakeExotelCall.js"
export { ExotelCall } from "./FakeExotelCall.js"
export type { MediaLeg } from "./FakeExotelMedia.js"
export { connectMedia } from "./FakeExotelMedia.js"

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
