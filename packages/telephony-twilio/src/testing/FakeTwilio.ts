/**
 * A fake Twilio on 127.0.0.1 for tests and the demo, faithful to what the adapter relies on:
 *
 * - REST (2010-04-01, form-encoded, HTTP Basic checked as Twilio does: 401 code 20003): `Calls.json`
 *   create (refusing what Twilio refuses: no To 21201, no From 21213, no Url 21205, a malformed To
 *   21211, a From the account does not own 21210), `Calls/{sid}.json` fetch and update (`Status=
 *   completed|canceled`, or `Twiml=` to redirect a call in progress: 21220 otherwise), `IncomingPhoneNumbers.json`
 *   list and update (`VoiceUrl`);
 * - calls played out (`FakeCall`): ringing, answered (AMD `AnsweredBy` when asked), talk, hang-up;
 *   busy; no-answer after the `Timeout`; failed; signed status callbacks in Twilio's order and format;
 *   the answer URL fetched and its TwiML run, media streams included (`FakeMedia`), `<Dial>` too (a
 *   transfer: the dialed leg's status callbacks and the dial's `action`); a call created with inline
 *   `Twiml=` runs it once answered; `<Dial><Conference>` joins a room (`FakeConference`: hold music
 *   until it starts, over when a participant with `endConferenceOnExit` leaves) — a warm transfer;
 * - incoming calls to a number, posted to its `VoiceUrl` like Twilio's voice webhook.
 *
 * Knobs: `behave(number, behaviour)` for how a dialed number answers; `failNext` for 429/5xx;
 * `secondMillis` scales Twilio's seconds to real milliseconds.
 */
import * as FakeCallees from "@agentline/telephony-kit/testing/FakeCallees"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import { type Behaviour, type CallStatus, FakeCall, newSid } from "./FakeCall.js"
import { FakeConferences } from "./FakeConference.js"
import { parse } from "./FakeTwiml.js"

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
  readonly conferences: FakeConferences
  /**
   * The call created (`Calls.json` with `Twiml=`) to join the conference `sid` waits in: a warm
   * transfer's target leg; undefined when there is none.
   */
  readonly joinedBy: (sid: string) => FakeCall | undefined
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
  const callees = FakeCallees.make<Behaviour>()
  const numbers = new Map<string, IncomingNumber>()
  const conferences = new FakeConferences()
  /** The conference each call created with inline TwiML will join, by call SID. */
  const invitedTo = new Map<string, string>()

  const error = (status: number, code: number, message: string) =>
    FakeHttp.json(status, { code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status })
  const notFound = () => error(404, 20404, "The requested resource was not found")

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

  /** The account a request authenticates as (HTTP Basic, SID and auth token), if any. */
  const authenticated = (request: FakeHttp.FakeRequest): Account | undefined => {
    const credentials = FakeHttp.basicCredentials(request.headers.authorization)
    const account = credentials === undefined ? undefined : accounts.get(credentials.user)
    return account !== undefined && account.token === credentials?.password ? account : undefined
  }
  const ACCOUNT_PATH = /^\/2010-04-01\/Accounts\/([^/]+)(\/.*)$/

  const createCall = (account: Account, form: URLSearchParams) => {
    const to = form.get("To")
    const from = form.get("From")
    const url = form.get("Url") ?? undefined
    const document = form.get("Twiml") ?? undefined
    const verbs = document === undefined ? undefined : parse(document)
    if (document !== undefined && verbs === undefined) return error(400, 12100, "Document parse failure")
    if (to === null || to === "") return error(400, 21201, "No 'To' number is specified")
    if (from === null || from === "") return error(400, 21213, "No 'From' number is specified")
    if (url === undefined && form.get("Twiml") === null && form.get("ApplicationSid") === null) {
      return error(400, 21205, "Url parameter is required.")
    }
    if ((!E164.test(to) && !to.startsWith("sip:") && !to.startsWith("client:")) || callees.peek(to)?.answer === "invalid") {
      return error(400, 21211, `Invalid 'To' Phone Number: ${to}`)
    }
    const owned = [...numbers.values()].filter((n) => n.accountSid === account.sid)
    if (owned.length > 0 && !owned.some((n) => n.phoneNumber === from)) {
      return error(400, 21210, `The source phone number provided, ${from}, is not yet verified for your account.`)
    }
    const events = form.getAll("StatusCallbackEvent")
    if (events.some((e) => !["initiated", "ringing", "answered", "completed"].includes(e))) {
      return error(400, 21626, "StatusCallbackEvent is not valid")
    }
    const timeout = Number(form.get("Timeout") ?? "60")
    const behaviour = callees.dial(to) ?? { answer: "human" }
    const call = new FakeCall(account, to, from, "outbound-api", behaviour, clock, {
      url: document === undefined ? url : undefined,
      document,
      conferences,
      statusCallback: form.get("StatusCallback") ?? undefined,
      events: new Set(events),
      machineDetection: form.get("MachineDetection") === "Enable" || form.get("MachineDetection") === "DetectMessageEnd",
      timeoutSeconds: Number.isFinite(timeout) ? Math.min(Math.max(timeout, 5), 600) : 60,
      dialed: (target) => callees.dial(target) ?? { answer: "human" }
    })
    calls.set(call.sid, call)
    const room = verbs?.find((v) => v._tag === "Conference")
    if (room?._tag === "Conference") invitedTo.set(call.sid, room.name)
    void call.play()
    return FakeHttp.json(201, resource(call))
  }

  const updateCall = (call: FakeCall, form: URLSearchParams) => {
    const twiml = form.get("Twiml")
    if (twiml !== null) {
      if (call.status !== "in-progress") return error(400, 21220, "Call is not in-progress. Cannot redirect.")
      if (parse(twiml) === undefined) return error(400, 12100, "Document parse failure")
      call.redirect(twiml)
      return FakeHttp.json(200, resource(call))
    }
    const status = form.get("Status")
    if (status !== "completed" && status !== "canceled") return error(400, 21218, "Invalid Status")
    if (call.isOver) return error(400, 21220, "Call is not in-progress. Cannot redirect.")
    if (call.status === "in-progress") {
      if (status === "completed") call.end("completed")
    } else {
      call.end("canceled")
    }
    return FakeHttp.json(200, resource(call))
  }

  const api = await FakeHttp.serve({
    authenticate: (request) => {
      const match = ACCOUNT_PATH.exec(request.path)
      if (match === null) return notFound()
      const account = authenticated(request)
      if (account === undefined) return error(401, 20003, "Authenticate")
      return account.sid === decodeURIComponent(match[1]!) ? undefined : notFound()
    },
    failure: (status) => {
      const [code, message] = ERROR_CODES[status] ?? [20500, "Internal Server Error"]
      return error(status, code, message)
    },
    route: (request) => {
      const account = authenticated(request)!
      const form = new URLSearchParams(request.body)
      const path = ACCOUNT_PATH.exec(request.path)![2]!
      const callMatch = /^\/Calls\/([^/]+)\.json$/.exec(path)
      const numberMatch = /^\/IncomingPhoneNumbers\/([^/]+)\.json$/.exec(path)
      if (path === "/Calls.json" && request.method === "POST") return createCall(account, form)
      if (callMatch !== null) {
        const call = calls.get(decodeURIComponent(callMatch[1]!))
        if (call === undefined || call.account.sid !== account.sid) return notFound()
        if (request.method === "GET") return FakeHttp.json(200, resource(call))
        if (request.method === "POST") return updateCall(call, form)
      }
      if (path === "/IncomingPhoneNumbers.json" && request.method === "GET") {
        const wanted = request.url.searchParams.get("PhoneNumber")
        const found = [...numbers.values()].filter((n) => n.accountSid === account.sid && (wanted === null || n.phoneNumber === wanted))
        return FakeHttp.json(200, { incoming_phone_numbers: found.map(numberResource), page: 0, page_size: 50 })
      }
      if (numberMatch !== null && request.method === "POST") {
        const number = [...numbers.values()].find((n) => n.sid === decodeURIComponent(numberMatch[1]!) && n.accountSid === account.sid)
        if (number === undefined) return notFound()
        const voiceUrl = form.get("VoiceUrl")
        if (voiceUrl !== null) number.voiceUrl = voiceUrl === "" ? null : voiceUrl
        return FakeHttp.json(200, numberResource(number))
      }
      return error(405, 20004, "Method not allowed")
    },
    onClose: () => {
      for (const call of calls.values()) call.end(call.status === "in-progress" ? "completed" : "canceled")
    }
  })

  const placeInbound = async (
    input: { readonly to: string; readonly from: string; readonly behaviour?: Behaviour; readonly signingToken?: string }
  ) => {
    const number = numbers.get(input.to)
    if (number === undefined || number.voiceUrl === null) return undefined
    const account = accounts.get(number.accountSid)!
    const call = new FakeCall(account, input.to, input.from, "inbound", input.behaviour ?? { answer: "human" }, clock, {
      conferences,
      events: new Set(),
      machineDetection: false,
      timeoutSeconds: 60
    })
    calls.set(call.sid, call)
    call.status = "ringing"
    const webhook = await call.request(number.voiceUrl, call.params({ FromCountry: "US", ToCountry: "US" }), input.signingToken)
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
    url: api.url,
    calls: () => [...calls.values()],
    call: (sid) => calls.get(sid),
    conferences,
    joinedBy: (sid) => {
      const room = calls.get(sid)?.conference
      if (room === undefined) return undefined
      const joiner = [...invitedTo.entries()].find(([other, name]) => other !== sid && name === room)
      return joiner === undefined ? undefined : calls.get(joiner[0])
    },
    behave: callees.behave,
    failNext: (status, count = 1, path) => api.failNext(status, count, (_method, p) => path === undefined || path.test(p)),
    addNumber: (accountSid, phoneNumber) => {
      const number: IncomingNumber = { sid: newSid("PN"), accountSid, phoneNumber, voiceUrl: null }
      numbers.set(phoneNumber, number)
      return number
    },
    number: (phoneNumber) => numbers.get(phoneNumber),
    placeInbound,
    close: api.close
  }
}

export type { CallStatus }
