/**
 * A fake Twilio on 127.0.0.1 for tests and the demo, faithful to what the adapter relies on:
 *
 * - REST (2010-04-01, form-encoded, HTTP Basic checked as Twilio does: 401 code 20003): `Calls.json`
 *   create (refusing what Twilio refuses: no To 21201, no From 21213, no Url 21205, a malformed To
 *   21211, a From the account does not own 21210), `Calls/{sid}.json` fetch and update (`Status=
 *   completed|canceled`), `IncomingPhoneNumbers.json` list and update (`VoiceUrl`);
 * - calls played out (`FakeCall`): ringing, answered (AMD `AnsweredBy` when asked), talk, hang-up;
 *   busy; no-answer after the `Timeout`; failed; signed status callbacks in Twilio's order and format;
 *   the answer URL fetched and its TwiML run, media streams included (`FakeMedia`);
 * - incoming calls to a number, posted to its `VoiceUrl` like Twilio's voice webhook.
 *
 * Knobs: `behave(number, behaviour)` for how a dialed number answers; `failNext` for 429/5xx;
 * `secondMillis` scales Twilio's seconds to real milliseconds.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { type Behaviour, type CallStatus, FakeCall, newSid } from "./FakeCall.js"

export { type Behaviour, FakeCall } from "./FakeCall.js"
export type { MediaLeg } from "./FakeMedia.js"

export interface Account {
  readonly sid: string
  readonly token: string
}

interface IncomingNumber {
  readonly sid: string
  readonly accountSid: string
  readonly phoneNumber: string
  voiceUrl: string | null
}

interface Failure {
  readonly status: number
  count: number
  readonly path: RegExp | undefined
}

const ERROR_CODES: Record<number, readonly [number, string]> = {
  429: [20429, "Too Many Requests"],
  500: [20500, "Internal Server Error"],
  503: [20503, "Service Unavailable"]
}

const E164 = /^\+[1-9][0-9]{7,14}$/

export interface FakeTwilio {
  /** The API base URL to give the adapter (`AGENTLINE_TWILIO_API_URL`). */
  readonly url: string
  readonly calls: () => ReadonlyArray<FakeCall>
  readonly call: (sid: string) => FakeCall | undefined
  /** How calls to `number` go; a list is one behaviour per call to it, the last one repeating. */
  readonly behave: (number: string, behaviour: Behaviour | ReadonlyArray<Behaviour>) => void
  /** The next `count` REST requests (whose path matches `path`, if given) answer `status`. */
  readonly failNext: (status: number, count?: number, path?: RegExp) => void
  /** An incoming phone number of `account`. */
  readonly addNumber: (accountSid: string, phoneNumber: string) => IncomingNumber
  readonly number: (phoneNumber: string) => IncomingNumber | undefined
  /** A caller dials `to`: Twilio posts its voice webhook and runs the answer; undefined without a webhook. */
  readonly placeInbound: (input: {
    readonly to: string
    readonly from: string
    readonly behaviour?: Behaviour
    /** Sign the webhook with another token than the account's (a forged request). */
    readonly signingToken?: string
  }) => Promise<FakeCall | undefined>
  readonly close: () => Promise<void>
}

export const start = async (options: {
  readonly accounts: ReadonlyArray<Account>
  /** Real milliseconds per Twilio second (default 1000). */
  readonly secondMillis?: number
}): Promise<FakeTwilio> => {
  const clock = { secondMillis: options.secondMillis ?? 1000 }
  const accounts = new Map(options.accounts.map((a) => [a.sid, a]))
  const calls = new Map<string, FakeCall>()
  const behaviours = new Map<string, ReadonlyArray<Behaviour>>()
  const dialed = new Map<string, number>()
  /** The behaviour of the next call to `number`. */
  const behaviourOf = (number: string): Behaviour | undefined => {
    const list = behaviours.get(number)
    if (list === undefined || list.length === 0) return undefined
    return list[Math.min(dialed.get(number) ?? 0, list.length - 1)]
  }
  const numbers = new Map<string, IncomingNumber>()
  const failures: Array<Failure> = []

  const json = (response: Http.ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { "content-type": "application/json" })
    response.end(JSON.stringify(body))
  }
  const error = (response: Http.ServerResponse, status: number, code: number, message: string) =>
    json(response, status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status })

  const resource = (call: FakeCall) => ({
    sid: call.sid,
    account_sid: call.account.sid,
    to: call.to,
    from: call.from,
    status: call.status,
    direction: call.direction,
    duration: call.isOver ? String(call.durationSeconds) : null,
    answered_by: call.answeredBy ?? null,
    api_version: "2010-04-01"
  })
  const numberResource = (n: IncomingNumber) => ({ sid: n.sid, account_sid: n.accountSid, phone_number: n.phoneNumber, voice_url: n.voiceUrl, voice_method: "POST" })

  const authenticated = (request: Http.IncomingMessage): Account | undefined => {
    const [scheme, encoded] = (request.headers.authorization ?? "").split(" ")
    if (scheme !== "Basic" || encoded === undefined) return undefined
    const decoded = Buffer.from(encoded, "base64").toString("utf8")
    const colon = decoded.indexOf(":")
    const account = accounts.get(decoded.slice(0, colon))
    return account !== undefined && account.token === decoded.slice(colon + 1) ? account : undefined
  }

  const createCall = (response: Http.ServerResponse, account: Account, form: URLSearchParams) => {
    const to = form.get("To")
    const from = form.get("From")
    const url = form.get("Url") ?? undefined
    if (to === null || to === "") return error(response, 400, 21201, "No 'To' number is specified")
    if (from === null || from === "") return error(response, 400, 21213, "No 'From' number is specified")
    if (url === undefined && form.get("Twiml") === null && form.get("ApplicationSid") === null) {
      return error(response, 400, 21205, "Url parameter is required.")
    }
    if ((!E164.test(to) && !to.startsWith("sip:") && !to.startsWith("client:")) || behaviourOf(to)?.answer === "invalid") {
      return error(response, 400, 21211, `Invalid 'To' Phone Number: ${to}`)
    }
    const owned = [...numbers.values()].filter((n) => n.accountSid === account.sid)
    if (owned.length > 0 && !owned.some((n) => n.phoneNumber === from)) {
      return error(response, 400, 21210, `The source phone number provided, ${from}, is not yet verified for your account.`)
    }
    const events = form.getAll("StatusCallbackEvent")
    if (events.some((e) => !["initiated", "ringing", "answered", "completed"].includes(e))) {
      return error(response, 400, 21626, "StatusCallbackEvent is not valid")
    }
    const timeout = Number(form.get("Timeout") ?? "60")
    const behaviour = behaviourOf(to) ?? { answer: "human" }
    dialed.set(to, (dialed.get(to) ?? 0) + 1)
    const call = new FakeCall(account, to, from, "outbound-api", behaviour, clock, {
      url,
      statusCallback: form.get("StatusCallback") ?? undefined,
      events: new Set(events),
      machineDetection: form.get("MachineDetection") === "Enable" || form.get("MachineDetection") === "DetectMessageEnd",
      timeoutSeconds: Number.isFinite(timeout) ? Math.min(Math.max(timeout, 5), 600) : 60
    })
    calls.set(call.sid, call)
    json(response, 201, resource(call))
    void call.play()
  }

  const updateCall = (response: Http.ServerResponse, call: FakeCall, form: URLSearchParams) => {
    const status = form.get("Status")
    if (status !== "completed" && status !== "canceled") return error(response, 400, 21218, "Invalid Status")
    if (call.isOver) return error(response, 400, 21220, "Call is not in-progress. Cannot redirect.")
    if (call.status === "in-progress") {
      if (status === "completed") call.end("completed")
    } else {
      call.end("canceled")
    }
    json(response, 200, resource(call))
  }

  const route = (request: Http.IncomingMessage, response: Http.ServerResponse, body: string) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const match = /^\/2010-04-01\/Accounts\/([^/]+)(\/.*)$/.exec(url.pathname)
    if (match === null) return error(response, 404, 20404, "The requested resource was not found")
    const account = authenticated(request)
    if (account === undefined) return error(response, 401, 20003, "Authenticate")
    if (account.sid !== decodeURIComponent(match[1]!)) return error(response, 404, 20404, "The requested resource was not found")
    const failure = failures.find((f) => f.count > 0 && (f.path === undefined || f.path.test(url.pathname)))
    if (failure !== undefined) {
      failure.count--
      const [code, message] = ERROR_CODES[failure.status] ?? [20500, "Internal Server Error"]
      return error(response, failure.status, code, message)
    }
    const form = new URLSearchParams(body)
    const path = match[2]!
    const callMatch = /^\/Calls\/([^/]+)\.json$/.exec(path)
    const numberMatch = /^\/IncomingPhoneNumbers\/([^/]+)\.json$/.exec(path)
    if (path === "/Calls.json" && request.method === "POST") return createCall(response, account, form)
    if (callMatch !== null) {
      const call = calls.get(decodeURIComponent(callMatch[1]!))
      if (call === undefined || call.account.sid !== account.sid) return error(response, 404, 20404, "The requested resource was not found")
      if (request.method === "GET") return json(response, 200, resource(call))
      if (request.method === "POST") return updateCall(response, call, form)
    }
    if (path === "/IncomingPhoneNumbers.json" && request.method === "GET") {
      const wanted = url.searchParams.get("PhoneNumber")
      const found = [...numbers.values()].filter((n) => n.accountSid === account.sid && (wanted === null || n.phoneNumber === wanted))
      return json(response, 200, { incoming_phone_numbers: found.map(numberResource), page: 0, page_size: 50 })
    }
    if (numberMatch !== null && request.method === "POST") {
      const number = [...numbers.values()].find((n) => n.sid === decodeURIComponent(numberMatch[1]!) && n.accountSid === account.sid)
      if (number === undefined) return error(response, 404, 20404, "The requested resource was not found")
      const voiceUrl = form.get("VoiceUrl")
      if (voiceUrl !== null) number.voiceUrl = voiceUrl === "" ? null : voiceUrl
      return json(response, 200, numberResource(number))
    }
    return error(response, 405, 20004, "Method not allowed")
  }

  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => route(request, response, Buffer.concat(chunks).toString("utf8")))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as AddressInfo

  const placeInbound = async (
    input: { readonly to: string; readonly from: string; readonly behaviour?: Behaviour; readonly signingToken?: string }
  ) => {
    const number = numbers.get(input.to)
    if (number === undefined || number.voiceUrl === null) return undefined
    const account = accounts.get(number.accountSid)!
    const call = new FakeCall(account, input.to, input.from, "inbound", input.behaviour ?? { answer: "human" }, clock, {
      events: new Set(),
      machineDetection: false,
      timeoutSeconds: 60
    })
    calls.set(call.sid, call)
    call.status = "ringing"
    const webhook = await call.post(number.voiceUrl, call.params({ FromCountry: "US", ToCountry: "US" }), input.signingToken)
    call.webhookStatus = webhook.status
    if (webhook.status !== 200) {
      call.answers.push(webhook.body)
      call.end("failed")
      return call
    }
    // Twilio answers an incoming call when its TwiML does more than refuse it.
    if (!/^\s*(<\?xml[^>]*\?>)?\s*<Response>\s*<Reject\b/.test(webhook.body)) call.answer("human")
    void call.run(webhook.body)
    return call
  }

  return {
    url: `http://127.0.0.1:${address.port}`,
    calls: () => [...calls.values()],
    call: (sid) => calls.get(sid),
    behave: (number, behaviour) => void behaviours.set(number, Array.isArray(behaviour) ? behaviour : [behaviour as Behaviour]),
    failNext: (status, count = 1, path) => void failures.push({ status, count, path }),
    addNumber: (accountSid, phoneNumber) => {
      const number: IncomingNumber = { sid: newSid("PN"), accountSid, phoneNumber, voiceUrl: null }
      numbers.set(phoneNumber, number)
      return number
    },
    number: (phoneNumber) => numbers.get(phoneNumber),
    placeInbound,
    close: async () => {
      for (const call of calls.values()) call.end(call.status === "in-progress" ? "completed" : "canceled")
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeAllConnections()
      await closed
    }
  }
}

export type { CallStatus }
