/**
 * A fake Vonage on 127.0.0.1 for tests, faithful to what the adapter relies on:
 *
 * - Voice API (`/v1/calls`): requests must carry an application JWT (RS256) that verifies with the
 *   application's public key, names it (`application_id`) and has not expired (401 otherwise); create
 *   (201 `{uuid, status: "started", ...}`; a number that cannot exist is 400 naming it), look up
 *   (404 for an unknown uuid), `PUT {"action":"hangup"}` (204; 400 for a call that is over),
 *   `PUT {"action":"transfer", "destination": {"type":"ncco", "ncco": [...]}}` (204; 400 for a call that
 *   is not answered or over): the call runs the NCCO, whose `connect` of a phone number or SIP URI
 *   dials a new leg (`FakeVonageConnect`);
 * - Applications API v2 and Numbers API with Basic `api_key:api_secret` (401 otherwise): `GET` / `PUT`
 *   `/v2/applications/{id}` (a PUT replaces it), `GET /account/numbers?pattern=`, `POST /number/update`
 *   (`app_id` links a number, an empty one unlinks it);
 * - calls played out as Vonage plays them: events (`started`, `ringing`, `answered`, then `completed`
 *   with `duration`, or `busy`, `unanswered`, `failed`, `cancelled`) posted in order as JSON to the
 *   call's `event_url`, each signed (a JWT in `Authorization`, HS256 with the signature secret, with the
 *   body's `payload_hash`) and delivered again when the server cannot be reached or answers 5xx; once answered, `advanced_machine_detection` in its synchronous `detect` mode
 *   reports `human` or `machine` first (a machine is hung up with `behavior: hangup`), then the answer
 *   URL is requested (POST JSON `{to, from, uuid, conversation_uuid}`, signed) and its NCCO run: `talk`,
 *   `conversation` (holds the call), `connect` to a `websocket` (the media leg of `FakeVonageMedia`,
 *   held until the socket closes); the call is hung up (`completed`) when the NCCO runs out;
 * - incoming calls to a number linked to an application: its answer URL is requested and its NCCO run.
 *
 * Knobs: `behave(number, behaviour)`, `failNext` for 429/5xx, `secondMillis` to scale time.
 */
import * as FakeCallees from "@agentline/telephony-kit/testing/FakeCallees"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as Crypto from "node:crypto"
import * as Jwt from "../Jwt.js"
import { type Account, type Application, type Behaviour, FakeVonageCall, sleep } from "./FakeVonageCall.js"

export type { MediaLeg } from "./FakeVonageMedia.js"
export type { Account, Answer, Application, Behaviour, CallStatus, PostedEvent } from "./FakeVonageCall.js"
export { FakeVonageCall } from "./FakeVonageCall.js"

export interface OwnedNumber {
  readonly msisdn: string
  readonly country: string
  appId: string | null
}

export interface FakeVonage {
  /** The base URL of every API (`AGENTLINE_VONAGE_API_URL`; the Numbers API answers here too). */
  readonly url: string
  readonly account: Account
  /** A new application with a fresh RSA key pair: its id and the PEM private key the adapter signs with. */
  readonly addApplication: (name: string) => { readonly application: Application; readonly privateKey: string }
  readonly application: (id: string) => Application | undefined
  readonly own: (number: string, appId?: string | null) => OwnedNumber
  readonly number: (number: string) => OwnedNumber | undefined
  readonly call: (uuid: string) => FakeVonageCall | undefined
  readonly calls: () => ReadonlyArray<FakeVonageCall>
  readonly behave: (number: string, behaviour: Behaviour) => void
  /** The next `count` API requests (those `applies` to, default all) answer `status`. */
  readonly failNext: (status: number, count?: number, applies?: (method: string, path: string) => boolean) => void
  /** Where an incoming call to `number` is sent now (its application's answer URL), or null. */
  readonly voiceUrl: (number: string) => string | null
  /** A caller dials `to`: its application's answer URL is requested and the NCCO run; undefined without one. */
  readonly placeInbound: (input: {
    readonly to: string
    readonly from: string
    readonly behaviour?: Behaviour
    /** Sign with another secret (a forged request). */
    readonly signatureSecret?: string
  }) => Promise<FakeVonageCall | undefined>
  readonly close: () => Promise<void>
}

const digits = (number: string) => number.replace(/^\+/, "")

export const start = async (options: {
  readonly account: Account
  /** Real milliseconds per Vonage second (default 1000). */
  readonly secondMillis?: number
}): Promise<FakeVonage> => {
  const secondMillis = options.secondMillis ?? 1000
  const account = options.account
  const applications = new Map<string, Application>()
  const numbers = new Map<string, OwnedNumber>()
  const calls = new Map<string, FakeVonageCall>()
  const callees = FakeCallees.make<Behaviour>()

  const json = FakeHttp.json
  /** Vonage's problem details (RFC 7807). */
  const problem = (status: number, title: string, detail: string) =>
    json(status, { type: `https://developer.nexmo.com/api-errors#${status}`, title, detail, instance: Crypto.randomUUID() })

  /** The application a Voice API request's JWT verifies for, if any. */
  const applicationOf = (authorization: string | undefined): Application | undefined => {
    const token = Jwt.bearer(authorization)
    const jwt = token === undefined ? undefined : Jwt.decode(token)
    if (jwt === undefined || jwt.header.alg !== "RS256") return undefined
    const app = typeof jwt.claims.application_id === "string" ? applications.get(jwt.claims.application_id) : undefined
    if (app === undefined) return undefined
    const valid = Crypto.verify("sha256", Buffer.from(jwt.signing), app.publicKey, jwt.signature)
    const now = Date.now() / 1000
    const exp = Number(jwt.claims.exp ?? now + 1)
    if (!valid || !(exp > now) || typeof jwt.claims.jti !== "string" || !Number.isFinite(Number(jwt.claims.iat))) return undefined
    return app
  }

  const basicOk = (authorization: string | undefined) => {
    const match = /^Basic\s+(\S+)$/.exec(authorization ?? "")
    if (match === null) return false
    return Buffer.from(match[1]!, "base64").toString("utf8") === `${account.apiKey}:${account.apiSecret}`
  }

  const applicationJson = (app: Application) => ({
    id: app.id,
    name: app.name,
    capabilities: {
      voice: {
        webhooks: {
          ...(app.answerUrl === null ? {} : { answer_url: { address: app.answerUrl, http_method: "POST" } }),
          ...(app.eventUrl === null ? {} : { event_url: { address: app.eventUrl, http_method: "POST" } })
        },
        signed_callbacks: app.signedCallbacks
      }
    },
    keys: { public_key: app.publicKey },
    _links: { self: { href: `/v2/applications/${app.id}` } }
  })

  const createCall = (app: Application, body: any) => {
    const to = Array.isArray(body?.to) ? body.to[0] : undefined
    if (to?.type !== "phone" || typeof to.number !== "string") return problem(400, "Bad Request", "to must be one phone endpoint")
    const from = body.from
    const random = body.random_from_number === true
    if (!random && (from?.type !== "phone" || typeof from.number !== "string")) {
      return problem(400, "Bad Request", "from is required unless random_from_number is true")
    }
    const answerUrl = Array.isArray(body.answer_url) ? body.answer_url[0] : undefined
    const eventUrl = Array.isArray(body.event_url) ? body.event_url[0] : undefined
    if (typeof answerUrl !== "string" && !Array.isArray(body.ncco)) return problem(400, "Bad Request", "answer_url or ncco is required")
    if ((body.answer_method ?? "GET") !== "POST") return problem(400, "Bad Request", "this fake only posts to answer URLs")
    const behaviour = callees.dial(`+${to.number}`) ?? { answer: "human" }
    if (!/^[1-9][0-9]{7,14}$/.test(to.number) || behaviour.answer === "invalid") {
      return problem(400, "Invalid To number", `The to number ${to.number} is not a valid phone number`)
    }
    const amd = body.advanced_machine_detection
    if (amd !== undefined && (amd?.mode !== "detect" || !["continue", "hangup"].includes(amd?.behavior))) {
      return problem(400, "Bad Request", "this fake runs advanced machine detection in detect mode only")
    }
    const call = new FakeVonageCall(account, app, to.number, random ? "14155550000" : from.number, "outbound", behaviour, secondMillis, {
      answerUrl: typeof answerUrl === "string" ? answerUrl : null,
      eventUrl: typeof eventUrl === "string" ? eventUrl : app.eventUrl,
      machineDetection: amd !== undefined,
      ringingTimer: Number(body.ringing_timer ?? 60),
      dialed
    })
    calls.set(call.uuid, call)
    void call.play()
    return json(201, { uuid: call.uuid, status: "started", direction: "outbound", conversation_uuid: call.conversationUuid })
  }

  const dialed = (to: string): Behaviour => callees.dial(to) ?? { answer: "human" }
  const isVoice = (path: string) => path === "/v1/calls" || path.startsWith("/v1/calls/")
  const isBasic = (path: string) => path.startsWith("/v2/applications/") || path === "/account/numbers" || path === "/number/update"

  const route = (request: FakeHttp.FakeRequest): FakeHttp.FakeResponse => {
    const url = request.url
    const path = request.path
    const raw = request.body
    const app = isVoice(path) ? applicationOf(request.headers.authorization) : undefined
    const form = new URLSearchParams(request.headers["content-type"]?.startsWith("application/x-www-form-urlencoded") ? raw : "")
    let body: any = {}
    if (raw.trim() !== "" && !request.headers["content-type"]?.startsWith("application/x-www-form-urlencoded")) {
      try {
        body = JSON.parse(raw)
      } catch {
        return problem(400, "Bad Request", "the body is not JSON")
      }
    }
    if (path === "/v1/calls") return request.method === "POST" ? createCall(app!, body) : problem(405, "Method Not Allowed", "")
    const callMatch = /^\/v1\/calls\/([^/]+)$/.exec(path)
    if (callMatch !== null) {
      const call = calls.get(decodeURIComponent(callMatch[1]!))
      if (call === undefined || call.application.id !== app!.id) return problem(404, "Not Found", "call not found")
      if (request.method === "GET") return json(200, call.resource())
      if (request.method === "PUT" && body?.action === "transfer") {
        if (call.isOver || !call.answered) return problem(400, "Bad Request", "the call is not in progress")
        const ncco = body.destination?.type === "ncco" ? body.destination.ncco : undefined
        if (!Array.isArray(ncco) || ncco.length === 0) return problem(400, "Bad Request", "destination must be {type: ncco} with an inline ncco (this fake takes no url)")
        call.transfer(ncco)
        return json(204)
      }
      if (request.method === "PUT") {
        if (body?.action !== "hangup") return problem(400, "Bad Request", "this fake knows the hangup action only")
        if (call.isOver) return problem(400, "Bad Request", "the call is not in progress")
        call.hangUp()
        return json(204)
      }
    }
    const appMatch = /^\/v2\/applications\/([^/]+)$/.exec(path)
    if (appMatch !== null) {
      const found = applications.get(decodeURIComponent(appMatch[1]!))
      if (found === undefined) return problem(404, "Not Found", "application not found")
      if (request.method === "GET") return json(200, applicationJson(found))
      if (request.method === "PUT") {
        if (typeof body?.name !== "string" || body.name === "") return problem(400, "Bad Request", "name is required")
        // A PUT replaces the application: what it leaves out is gone.
        const voiceCap = body.capabilities?.voice
        found.name = body.name
        found.answerUrl = typeof voiceCap?.webhooks?.answer_url?.address === "string" ? voiceCap.webhooks.answer_url.address : null
        found.eventUrl = typeof voiceCap?.webhooks?.event_url?.address === "string" ? voiceCap.webhooks.event_url.address : null
        found.signedCallbacks = voiceCap?.signed_callbacks === true
        if (typeof body.keys?.public_key === "string") found.publicKey = body.keys.public_key
        return json(200, applicationJson(found))
      }
    }
    if (path === "/account/numbers" && request.method === "GET") {
      const pattern = url.searchParams.get("pattern") ?? ""
      const list = [...numbers.values()].filter((n) => n.msisdn.includes(pattern))
      return json(200, {
        count: list.length,
        numbers: list.map((n) => ({ country: n.country, msisdn: n.msisdn, type: "landline", features: ["VOICE"], ...(n.appId === null ? {} : { app_id: n.appId }) }))
      })
    }
    if (path === "/number/update" && request.method === "POST") {
      const owned = numbers.get(form.get("msisdn") ?? "")
      if (owned === undefined || owned.country !== form.get("country")) {
        return json(420, { "error-code": "420", "error-code-label": "Number not found or not owned by this account" })
      }
      const appId = form.get("app_id")
      if (appId !== null && appId !== "" && !applications.has(appId)) {
        return json(420, { "error-code": "420", "error-code-label": "Application not found" })
      }
      owned.appId = appId === null || appId === "" ? null : appId
      return json(200, { "error-code": "200", "error-code-label": "success" })
    }
    return problem(404, "Not Found", "no such resource")
  }

  const api = await FakeHttp.serve({
    authenticate: (request) => {
      const voice = isVoice(request.path)
      if (!voice && !isBasic(request.path)) return problem(404, "Not Found", "no such resource")
      const ok = voice ? applicationOf(request.headers.authorization) !== undefined : basicOk(request.headers.authorization)
      return ok ? undefined : problem(401, "Unauthorized", "You did not provide correct credentials")
    },
    failure: (status) => problem(status, status === 429 ? "Too Many Requests" : "Internal Server Error", "try again later"),
    route,
    onClose: () => {
      for (const call of calls.values()) call.hangUp()
    }
  })

  const own = (number: string, appId: string | null = null) => {
    const msisdn = digits(number)
    const found = numbers.get(msisdn)
    if (found !== undefined) return found
    const created: OwnedNumber = { msisdn, country: msisdn.startsWith("1") ? "US" : "GB", appId }
    numbers.set(msisdn, created)
    return created
  }

  const voiceUrl = (number: string) => {
    const owned = numbers.get(digits(number))
    return owned?.appId == null ? null : applications.get(owned.appId)?.answerUrl ?? null
  }

  return {
    url: api.url,
    account,
    addApplication: (name) => {
      const { privateKey, publicKey } = Crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
      const application: Application = {
        id: Crypto.randomUUID(),
        name,
        publicKey: publicKey.export({ type: "spki", format: "pem" }).toString(),
        answerUrl: null,
        eventUrl: null,
        signedCallbacks: false
      }
      applications.set(application.id, application)
      return { application, privateKey: privateKey.export({ type: "pkcs8", format: "pem" }).toString() }
    },
    application: (id) => applications.get(id),
    own,
    number: (number) => numbers.get(digits(number)),
    call: (uuid) => calls.get(uuid),
    calls: () => [...calls.values()],
    behave: (number, behaviour) => callees.behave(number, behaviour),
    failNext: (status, count = 1, applies = () => true) => api.failNext(status, count, applies),
    voiceUrl,
    placeInbound: async (input) => {
      const owned = numbers.get(digits(input.to))
      const app = owned?.appId == null ? undefined : applications.get(owned.appId)
      if (owned === undefined || app === undefined || app.answerUrl === null) return undefined
      const call = new FakeVonageCall(account, app, owned.msisdn, digits(input.from), "inbound", input.behaviour ?? { answer: "human", talkSeconds: 1000 }, secondMillis, {
        answerUrl: app.answerUrl,
        eventUrl: app.eventUrl,
        machineDetection: false,
        ringingTimer: 60,
        dialed
      })
      calls.set(call.uuid, call)
      call.status = "ringing"
      // The answer's NCCO runs on; the caller is on the line until hung up.
      const running = call.fetchAndRun(input.signatureSecret)
      while (call.answerStatus === undefined && !call.isOver) await sleep(5)
      void running
      return call
    },
    close: api.close
  }
}
