/**
 * A fake Telnyx on 127.0.0.1 for tests and demos, faithful to what the adapter relies on:
 *
 * - REST (API v2, JSON, `Authorization: Bearer <API key>` checked as Telnyx does: 401 code 10009):
 *   `POST /v2/calls` (refusing what Telnyx refuses, with its `{"errors": [...]}` bodies: missing
 *   parameters 10004, an unknown connection 10017, a `to`/`from` not in +E.164 10016, an invalid
 *   number 10002, a `from` the account does not own, bad URLs 10003, bad enum values 10015; a repeated
 *   `command_id` dials nothing new), `GET /v2/calls/{id}`, `actions/{hangup|answer|reject|transfer}` (422
 *   code 90018 once the call is over; `transfer` dials a new leg, `FakeCall.playTransferLeg`), phone numbers (list by number, assign to an application) and
 *   Call Control Applications (read, update: `application_name` required);
 * - calls played out (`FakeCall`) with Ed25519-signed webhooks in Telnyx's order and format, the media
 *   stream (`FakeMedia`), answering machine detection when asked;
 * - incoming calls to a number, announced to its application's `webhook_event_url` and left parked
 *   until the server answers or rejects them by command.
 *
 * The fake holds the account's Ed25519 key pair; `publicKey` is what the configuration carries.
 * Knobs: `behave(number, behaviour)`, `failNext` for 429/5xx, `secondMillis` to scale Telnyx's seconds.
 */
import * as FakeCallees from "@agentline/telephony-kit/testing/FakeCallees"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as Crypto from "node:crypto"
import { publicKeyBase64 } from "../Signature.js"
import { type Account, type Behaviour, FakeCall, type Stream } from "./FakeCall.js"
import * as Rules from "./FakeRules.js"

export { type Behaviour, FakeCall } from "./FakeCall.js"
export type { MediaLeg } from "./FakeMedia.js"

export interface Application {
  readonly id: string
  applicationName: string
  webhookEventUrl: string | null
}

export interface PhoneNumber {
  readonly id: string
  readonly phoneNumber: string
  connectionId: string | null
}

export interface FakeTelnyx {
  /** The API base URL to give the adapter (`AGENTLINE_TELNYX_API_URL`). */
  readonly url: string
  readonly apiKey: string
  /** The account's webhook public key, base64 (the configuration's `webhook_public_key`). */
  readonly publicKey: string
  readonly calls: () => ReadonlyArray<FakeCall>
  /** Every REST request received, in order: method and path. */
  readonly requests: () => ReadonlyArray<{ readonly method: string; readonly path: string }>
  readonly call: (callControlId: string) => FakeCall | undefined
  readonly behave: (number: string, behaviour: Behaviour) => void
  /** The next `count` REST requests (whose path matches `path`, if given) answer `status`. */
  readonly failNext: (status: number, count?: number, path?: RegExp) => void
  readonly addApplication: (name: string, webhookEventUrl?: string | null) => Application
  readonly application: (id: string) => Application | undefined
  /** A number of the account, assigned to an application or to none. */
  readonly addNumber: (phoneNumber: string, connectionId?: string | null) => PhoneNumber
  readonly number: (phoneNumber: string) => PhoneNumber | undefined
  /** A caller dials `to`: announced to its application's webhook; undefined when no webhook would hear it. */
  readonly placeInbound: (
    input: { readonly to: string; readonly from: string; readonly behaviour?: Behaviour; readonly signature?: "good" | "wrong" }
  ) => Promise<FakeCall | undefined>
  readonly close: () => Promise<void>
}

const newId = () => String(BigInt.asUintN(62, Crypto.randomBytes(8).readBigUInt64BE()))

export const start = async (options: {
  readonly apiKey: string
  /** Real milliseconds per Telnyx second (default 1000). */
  readonly secondMillis?: number
}): Promise<FakeTelnyx> => {
  const clock = { secondMillis: options.secondMillis ?? 1000 }
  const keys = Crypto.generateKeyPairSync("ed25519")
  const account: Account = { apiKey: options.apiKey, privateKey: keys.privateKey }
  const calls = new Map<string, FakeCall>()
  const byCommandId = new Map<string, FakeCall>()
  const callees = FakeCallees.make<Behaviour>()
  const applications = new Map<string, Application>()
  const numbers = new Map<string, PhoneNumber>()

  const json = FakeHttp.json
  const refuse = (refusal: Rules.Refusal) =>
    json(refusal.status, {
      errors: [{ code: refusal.code, title: refusal.title, detail: refusal.detail, ...(refusal.pointer ? { source: { pointer: refusal.pointer } } : {}) }]
    })

  const callResource = (call: FakeCall) => ({
    record_type: "call",
    call_control_id: call.callControlId,
    call_leg_id: call.callLegId,
    call_session_id: call.callSessionId,
    is_alive: !call.isOver,
    client_state: call.clientState ?? null,
    call_duration: call.durationSeconds,
    start_time: call.startedAt.toISOString(),
    ...(call.endedAt !== undefined ? { end_time: new Date(call.endedAt).toISOString() } : {})
  })
  const numberResource = (n: PhoneNumber) => ({ id: n.id, record_type: "phone_number", phone_number: n.phoneNumber, status: "active", connection_id: n.connectionId })
  const applicationResource = (a: Application) => ({
    id: a.id,
    record_type: "call_control_application",
    application_name: a.applicationName,
    webhook_event_url: a.webhookEventUrl,
    webhook_api_version: "2",
    active: true
  })

  const dial = (body: Record<string, any>) => {
    const repeated = typeof body.command_id === "string" ? byCommandId.get(body.command_id) : undefined
    if (repeated !== undefined) return json(200, { data: { ...callResource(repeated), is_alive: false } })
    const checked = Rules.checkDial(body, {
      application: (id) => applications.get(id),
      owns: (number) => numbers.has(number),
      ownsAny: numbers.size > 0,
      behaviour: (number) => callees.peek(number)
    })
    if (checked._tag === "Refusal") return refuse(checked)
    const call = new FakeCall(account, "outgoing", body.from, body.to, body.connection_id, callees.dial(body.to) ?? { answer: "human" }, clock, body.webhook_url ?? checked.application.webhookEventUrl ?? undefined, body.client_state, {
      stream: checked.stream,
      machineDetection: body.answering_machine_detection !== undefined && body.answering_machine_detection !== "disabled",
      timeoutSeconds: body.timeout_secs ?? 30
    })
    calls.set(call.callControlId, call)
    if (typeof body.command_id === "string") byCommandId.set(body.command_id, call)
    void call.play()
    // Dialing is asynchronous: the call is not alive yet when the dial is answered.
    return json(200, { data: { ...callResource(call), is_alive: false } })
  }

  const command = (call: FakeCall, action: string, body: Record<string, any>) => {
    call.commands.push({ action, body })
    if (call.isOver) return refuse(Rules.callEnded)
    const ok = () => json(200, { data: { result: "ok" } })
    switch (action) {
      case "hangup":
        call.hangUpByCommand()
        return ok()
      case "reject": {
        if (call.state !== "parked") return refuse(Rules.bad("Only an incoming call that was not answered can be rejected"))
        if (body.cause !== "CALL_REJECTED" && body.cause !== "USER_BUSY") return refuse(Rules.missing("cause"))
        call.end(body.cause === "USER_BUSY" ? "user_busy" : "call_rejected", "callee", body.cause === "USER_BUSY" ? "486" : "603")
        return ok()
      }
      case "answer": {
        if (call.state !== "parked") return refuse(Rules.bad("The call was already answered"))
        const stream = Rules.checkStream(body)
        if (stream !== undefined && "_tag" in stream) return refuse(stream)
        if (typeof body.webhook_url === "string") call.webhookUrl = body.webhook_url
        if (typeof body.client_state === "string") call.clientState = body.client_state
        void call.answerByCommand(stream as Stream | undefined)
        return ok()
      }
      case "transfer": {
        if (call.state !== "answered") return refuse(Rules.bad("Only an answered call can be transferred"))
        const refusal = Rules.checkTransfer(body)
        if (refusal !== undefined) return refuse(refusal)
        call.transferredTo = body.to
        // The new leg: from the original call's number unless told, its webhooks where the command says.
        const leg = new FakeCall(account, "outgoing", body.from ?? call.to, body.to, call.connectionId, callees.dial(body.to) ?? { answer: "human" }, clock, body.webhook_url ?? call.webhookUrl, body.target_leg_client_state, {
          machineDetection: false,
          timeoutSeconds: body.timeout_secs ?? 30
        })
        calls.set(leg.callControlId, leg)
        void leg.playTransferLeg(call)
        return ok()
      }
      default:
        return refuse(Rules.notFound)
    }
  }

  const route = (request: FakeHttp.FakeRequest) => {
    const url = request.url
    const text = request.body
    let body: Record<string, any> = {}
    if (request.method !== "GET") {
      try {
        body = text === "" ? {} : JSON.parse(text)
      } catch {
        return refuse(Rules.invalidJson)
      }
      if (typeof body !== "object" || body === null || Array.isArray(body)) return refuse(Rules.invalidJson)
    }
    const path = url.pathname
    const callMatch = /^\/v2\/calls\/([^/]+)(?:\/actions\/([a-z_]+))?$/.exec(path)
    const numberMatch = /^\/v2\/phone_numbers\/([^/]+)$/.exec(path)
    const applicationMatch = /^\/v2\/call_control_applications\/([^/]+)$/.exec(path)
    if (path === "/v2/calls" && request.method === "POST") return dial(body)
    if (callMatch !== null) {
      const call = calls.get(decodeURIComponent(callMatch[1]!))
      if (call === undefined) return refuse(Rules.notFound)
      if (callMatch[2] === undefined && request.method === "GET") return json(200, { data: callResource(call) })
      if (callMatch[2] !== undefined && request.method === "POST") return command(call, callMatch[2], body)
    }
    if (path === "/v2/phone_numbers" && request.method === "GET") {
      const wanted = url.searchParams.get("filter[phone_number]")
      const found = [...numbers.values()].filter((n) => wanted === null || n.phoneNumber === wanted)
      return json(200, { data: found.map(numberResource), meta: { total_results: found.length, total_pages: 1, page_number: 1, page_size: 20 } })
    }
    if (numberMatch !== null && request.method === "PATCH") {
      const number = [...numbers.values()].find((n) => n.id === decodeURIComponent(numberMatch[1]!))
      if (number === undefined) return refuse(Rules.notFound)
      if (body.connection_id !== undefined) {
        if (body.connection_id !== null && !applications.has(String(body.connection_id))) return refuse(Rules.unknownConnection)
        number.connectionId = body.connection_id === null ? null : String(body.connection_id)
      }
      return json(200, { data: numberResource(number) })
    }
    if (applicationMatch !== null) {
      const application = applications.get(decodeURIComponent(applicationMatch[1]!))
      if (application === undefined) return refuse(Rules.notFound)
      if (request.method === "GET") return json(200, { data: applicationResource(application) })
      if (request.method === "PATCH") {
        const refusal = Rules.checkApplicationUpdate(body)
        if (refusal !== undefined) return refuse(refusal)
        application.applicationName = body.application_name
        if (body.webhook_event_url !== undefined) application.webhookEventUrl = body.webhook_event_url
        return json(200, { data: applicationResource(application) })
      }
    }
    return refuse(Rules.notFound)
  }

  const api = await FakeHttp.serve({
    authenticate: (request) => (request.headers.authorization === `Bearer ${options.apiKey}` ? undefined : refuse(Rules.unauthenticated)),
    failure: (status) => refuse(Rules.transient(status)),
    route,
    onClose: () => {
      for (const call of calls.values()) if (!call.isOver) call.end("normal_clearing", "unknown", "200")
    }
  })

  const placeInbound = async (
    input: { readonly to: string; readonly from: string; readonly behaviour?: Behaviour; readonly signature?: "good" | "wrong" }
  ) => {
    const number = numbers.get(input.to)
    const application = number?.connectionId == null ? undefined : applications.get(number.connectionId)
    if (application === undefined || application.webhookEventUrl === null) return undefined
    const call = new FakeCall(account, "incoming", input.from, input.to, application.id, input.behaviour ?? { answer: "human" }, clock, application.webhookEventUrl, undefined, {
      machineDetection: false,
      timeoutSeconds: 30
    })
    calls.set(call.callControlId, call)
    call.arrive(input.signature ?? "good")
    await call.settled()
    return call
  }

  return {
    url: api.url,
    apiKey: options.apiKey,
    publicKey: publicKeyBase64(keys.publicKey),
    calls: () => [...calls.values()],
    requests: api.requests,
    call: (id) => calls.get(id),
    behave: (number, behaviour) => callees.behave(number, behaviour),
    failNext: (status, count = 1, path) => api.failNext(status, count, (_method, p) => path === undefined || path.test(p)),
    addApplication: (name, webhookEventUrl = null) => {
      const application: Application = { id: newId(), applicationName: name, webhookEventUrl }
      applications.set(application.id, application)
      return application
    },
    application: (id) => applications.get(id),
    addNumber: (phoneNumber, connectionId = null) => {
      const number: PhoneNumber = { id: newId(), phoneNumber, connectionId }
      numbers.set(phoneNumber, number)
      return number
    },
    number: (phoneNumber) => numbers.get(phoneNumber),
    placeInbound,
    close: api.close
  }
}
