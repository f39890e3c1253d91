/**
 * A fake Cloudonix on 127.0.0.1 for tests, sending what Cloudonix's public documentation says it sends
 * (the pages are named in docs/providers/cloudonix.md) and, where the documentation is silent, what
 * integrations that talk to Cloudonix show:
 *
 * - REST (JSON, `Authorization: Bearer <domain API key>`, 401 otherwise): `POST /calls/{domain}/
 *   application` (refusing a missing `destination` or `caller-id`, a malformed destination, a CXML it
 *   cannot read), session lookup and `DELETE` (hang-up), voice application `PATCH`, DNID list, attach
 *   and detach. Sessions and DNIDs are answered in the shapes of the "Session" and "DNID" data models:
 *   a DNID's `application` is the voice application object.
 * - calls played out like Twilio's (CXML is TwiML): ringing, answered, talk, hang-up; busy; no-answer;
 *   failed; the placed CXML run (its `<Redirect>` fetched), media streams in Twilio's protocol.
 * - voice application requests (an incoming call, a `<Redirect>`) are JSON, as the "Voice Application
 *   Request" page says of POST: `CallSid`, `From`, `To`, `Direction`, `CallStatus`, `Session`,
 *   `Domain`, `AccountSid` and the session as `SessionData`.
 * - session notifications to a call's `callback` are the JSON session object, its `status` one of
 *   Cloudonix's session states: `new`, `ringing`, `connected` once answered, and at the end `busy`,
 *   `noanswer`, `cancel`, `error`, or the last state with `callEndTime` for a call that was answered
 *   and hung up. `report` posts any other state (`processing`, `external`, ...).
 * - every request to the server carries the domain's API key in `x-cx-apikey` (Cloudonix signs nothing).
 *
 * Knobs: `behave(number, behaviour)`, `failNext` for 429/5xx, `attach` (DNIDs of any shape),
 * `secondMillis` to scale time.
 */
import { type Behaviour, type CallStatus, FakeCall } from "@agentline/telephony-twilio/testing/FakeCall"
import * as FakeTwiml from "@agentline/telephony-twilio/testing/FakeTwiml"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export type { Behaviour } from "@agentline/telephony-twilio/testing/FakeCall"

export interface Domain {
  /** The domain name, e.g. `acme.cloudonix.net`. */
  readonly name: string
  readonly apiKey: string
}

interface Application {
  readonly id: number
  readonly name: string
  url: string | null
}

interface Dnid {
  readonly id: number
  readonly source: string
  application: string
  readonly prefix: boolean
  readonly expression: boolean
  readonly asteriskCompatible: boolean
  active: boolean
}

/** How a DNID matches (all false: exactly its source), and whether it is active. */
export interface DnidOptions {
  readonly prefix?: boolean
  readonly expression?: boolean
  readonly asteriskCompatible?: boolean
  readonly active?: boolean
}

const FINAL = new Set(["completed", "busy", "failed", "no-answer", "canceled"])

/** The session state of a call the fake plays with Twilio's engine (Twilio's statuses). */
const sessionState = (status: string, answered: boolean): string => {
  switch (status) {
    case "queued":
    case "initiated":
      return "new"
    case "ringing":
      return "ringing"
    case "in-progress":
      return "connected"
    case "completed":
      // Cloudonix has no state of its own for a call that talked and hung up: it stays connected,
      // disconnected at `callEndTime`.
      return answered ? "connected" : "error"
    case "busy":
      return "busy"
    case "no-answer":
      return "noanswer"
    case "canceled":
      return "cancel"
    default:
      return "error"
  }
}

const iso = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString())

/** One Cloudonix session: a call, played by Twilio's engine, named by its session token. */
export class CloudonixCall extends FakeCall {
  override readonly sid = Crypto.randomBytes(16).toString("hex")
  readonly startedAt = Date.now()
  private answerMillis: number | undefined = undefined
  private endMillis: number | undefined = undefined

  override answer(who: "human" | "machine_start") {
    this.answerMillis = Date.now()
    super.answer(who)
  }

  override end(status: CallStatus, talkSeconds?: number) {
    if (!this.isOver) this.endMillis = Date.now()
    super.end(status, talkSeconds)
  }

  /** A voice application request's parameters (Cloudonix's names; `CallSid` is the session token). */
  override params(extra: Record<string, string | undefined> = {}): Array<readonly [string, string]> {
    const base: Record<string, string | undefined> = {
      ApiVersion: "1",
      AccountSid: this.account.sid,
      CallSid: this.sid,
      CallStatus: this.status,
      CallerName: this.from,
      Direction: this.direction,
      Domain: this.account.sid,
      From: this.from,
      Session: this.sid,
      To: this.to,
      ...extra
    }
    return Object.entries(base).filter((e): e is [string, string] => e[1] !== undefined)
  }

  override authHeaders(_url: string, _params: ReadonlyArray<readonly [string, string]>, token: string): Record<string, string> {
    return { "x-cx-apikey": token, "user-agent": "Cloudonix-Voice-Application/1.0" }
  }

  /**
   * The session object ("Session" data model) in `state`. `answered` / `ended`: whether it tells when the
   * call was answered and disconnected. Times follow the fake's clock: a call that talked N Cloudonix
   * seconds is disconnected N×1000 ms after its answer.
   */
  session(state: string, moments: { readonly answered: boolean; readonly ended: boolean }) {
    const answeredAt = moments.answered && this.answerMillis !== undefined ? this.answerMillis : null
    const endedAt = !moments.ended
      ? null
      : answeredAt !== null
      ? answeredAt + this.durationSeconds * 1000
      : this.endMillis ?? Date.now()
    return {
      token: this.sid,
      domain: this.account.sid,
      destination: this.to,
      callerId: this.from,
      direction: this.direction,
      status: state,
      callStartTime: this.startedAt,
      callAnswerTime: answeredAt,
      callEndTime: endedAt,
      startTime: iso(this.startedAt),
      answerTime: iso(answeredAt),
      endTime: iso(endedAt),
      callback: this.options.statusCallback ?? null,
      profile: {}
    }
  }

  /** The session as it is now (what the REST API answers). */
  current() {
    const answered = this.answerMillis !== undefined
    return this.session(sessionState(this.status, answered), { answered, ended: this.isOver })
  }

  /** The session notification for a progress event the engine reports (its Twilio `CallStatus`). */
  private notification(params: ReadonlyArray<readonly [string, string]>) {
    const status = params.find(([name]) => name === "CallStatus")?.[1] ?? this.status
    const final = FINAL.has(status)
    const answered = this.answerMillis !== undefined && (status === "in-progress" || final)
    return this.session(sessionState(status, answered), { answered, ended: final })
  }

  /** A voice application request: its parameters and the session as `SessionData`. */
  private applicationRequest(params: ReadonlyArray<readonly [string, string]>) {
    return {
      ...Object.fromEntries(params),
      SessionData: this.session("processing", { answered: this.answerMillis !== undefined, ended: false })
    }
  }

  private async send(url: string, body: unknown, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    try {
      const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
      return { status: response.status, body: await response.text() }
    } catch {
      return { status: 0, body: "" }
    }
  }

  /**
   * Every request about this call, as Cloudonix sends it: JSON. The engine's status callbacks (they carry
   * `CallbackSource`) become session notifications; anything else is a voice application request.
   */
  override async post(
    url: string,
    params: ReadonlyArray<readonly [string, string]>,
    token = this.account.token
  ): Promise<{ status: number; body: string; signature: string }> {
    const body = params.some(([name]) => name === "CallbackSource") ? this.notification(params) : this.applicationRequest(params)
    return { ...(await this.send(url, body, this.authHeaders(url, params, token))), signature: token }
  }

  /** The first notification posted again with another API key, or none: the HTTP status. */
  override async forge(signature: "wrong" | "missing"): Promise<number> {
    const first = this.callbacks[0]
    if (first === undefined) throw new Error(`session ${this.sid} posted no notification`)
    const headers = signature === "wrong" ? this.authHeaders(first.url, first.params, "not-the-api-key") : {}
    return (await this.send(first.url, this.notification(first.params), headers)).status
  }

  /** Posts a session notification in `state` to the call's `callback` (any state, as Cloudonix may): the HTTP status. */
  async report(state: string): Promise<number> {
    const url = this.options.statusCallback
    if (url === undefined) throw new Error(`session ${this.sid} has no callback`)
    const answered = this.answerMillis !== undefined
    return (await this.send(url, this.session(state, { answered, ended: false }), this.authHeaders(url, [], this.account.token))).status
  }

  /** The CDR Cloudonix would post at the end (JSON). */
  cdr() {
    const disposition: Record<string, string> = {
      completed: "ANSWER",
      busy: "BUSY",
      canceled: "CANCEL",
      failed: "FAILED",
      "no-answer": "NOANSWER"
    }
    return { disposition: disposition[this.status] ?? "FAILED", billsec: this.durationSeconds, session: { token: this.sid } }
  }
}

interface Failure {
  readonly status: number
  count: number
}

const E164 = /^\+[1-9][0-9]{7,14}$/

export interface FakeCloudonix {
  /** The API base URL to give the adapter (`AGENTLINE_CLOUDONIX_API_URL`). */
  readonly url: string
  readonly call: (token: string) => CloudonixCall | undefined
  readonly calls: () => ReadonlyArray<CloudonixCall>
  readonly behave: (number: string, behaviour: Behaviour) => void
  readonly failNext: (status: number, count?: number) => void
  /** An application of `domain` (created if missing) with `url`. */
  readonly application: (domain: string, name: string, url?: string | null) => Application
  /**
   * Attaches `number` as a DNID of the application `name` (moving the exact DNID of that number if it is
   * elsewhere); `options` give another kind of DNID (a prefix, a pattern, an inactive one).
   */
  readonly attach: (domain: string, number: string, application: string, options?: DnidOptions) => void
  /** The domain's DNIDs, as `GET .../dnids` answers them. */
  readonly dnids: (domain: string) => ReadonlyArray<ReturnType<typeof dnidJson>>
  /** Where an incoming call to `number` is posted now (its exact, active DNID's application), or null. */
  readonly voiceUrl: (number: string) => string | null
  /** A caller dials `to`: its application's URL is posted and its answer run; undefined without one. */
  readonly placeInbound: (input: {
    readonly to: string
    readonly from: string
    readonly behaviour?: Behaviour
    /** Send another key than the domain's (a forged request). */
    readonly apiKey?: string
  }) => Promise<CloudonixCall | undefined>
  readonly close: () => Promise<void>
}

const applicationJson = (app: Application) => ({ id: app.id, name: app.name, type: "cxml", url: app.url, method: "POST", active: true, profile: {} })

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** A DNID as the "DNID" data model has it: `dnid` is the expression as a regular expression. */
const dnidJson = (dnid: Dnid, app: Application | undefined) => ({
  id: dnid.id,
  dnid: dnid.expression || dnid.asteriskCompatible ? dnid.source : `^${escapeRegExp(dnid.source)}${dnid.prefix ? "" : "$"}`,
  source: dnid.source,
  prefix: dnid.prefix,
  expression: dnid.expression,
  asteriskCompatible: dnid.asteriskCompatible,
  active: dnid.active,
  application: app === undefined ? null : applicationJson(app)
})

const isExact = (dnid: Dnid) => !dnid.prefix && !dnid.expression && !dnid.asteriskCompatible

export const start = async (options: {
  readonly domains: ReadonlyArray<Domain>
  /** Real milliseconds per Cloudonix second (default 1000). */
  readonly secondMillis?: number
}): Promise<FakeCloudonix> => {
  const clock = { secondMillis: options.secondMillis ?? 1000 }
  const domains = new Map(options.domains.map((d) => [d.name, d]))
  const applications = new Map<string, Map<string, Application>>(options.domains.map((d) => [d.name, new Map()]))
  const dnids = new Map<string, Map<number, Dnid>>(options.domains.map((d) => [d.name, new Map()]))
  const calls = new Map<string, CloudonixCall>()
  const behaviours = new Map<string, Behaviour>()
  const failures: Array<Failure> = []
  let nextId = 1

  const json = (response: Http.ServerResponse, status: number, body?: unknown) => {
    if (body === undefined) {
      response.writeHead(status)
      return response.end()
    }
    response.writeHead(status, { "content-type": "application/json" })
    response.end(JSON.stringify(body))
  }
  const error = (response: Http.ServerResponse, status: number, message: string) => json(response, status, { status, message })

  const applicationOf = (domain: string, name: string, url?: string | null): Application => {
    const apps = applications.get(domain)!
    const found = apps.get(name)
    if (found !== undefined) {
      if (url !== undefined) found.url = url
      return found
    }
    const created = { id: nextId++, name, url: url ?? null }
    apps.set(name, created)
    return created
  }

  const exactDnid = (domain: string, number: string) => [...dnids.get(domain)!.values()].find((d) => isExact(d) && d.source === number)

  const attach = (domain: string, number: string, application: string, kind: DnidOptions = {}) => {
    const exact = !(kind.prefix === true || kind.expression === true || kind.asteriskCompatible === true)
    const found = exact ? exactDnid(domain, number) : undefined
    if (found !== undefined) {
      found.application = application
      found.active = kind.active ?? true
      return
    }
    const id = nextId++
    dnids.get(domain)!.set(id, {
      id,
      source: number,
      application,
      prefix: kind.prefix ?? false,
      expression: kind.expression ?? false,
      asteriskCompatible: kind.asteriskCompatible ?? false,
      active: kind.active ?? true
    })
  }

  const listDnids = (domain: string, application?: string) =>
    [...dnids.get(domain)!.values()]
      .filter((d) => application === undefined || d.application === application)
      .map((d) => dnidJson(d, applications.get(domain)!.get(d.application)))

  const createCall = (response: Http.ServerResponse, domain: Domain, body: Record<string, unknown>) => {
    const to = body.destination
    const from = body["caller-id"]
    const cxml = body.cxml
    if (typeof to !== "string" || to === "") return error(response, 400, "destination is required")
    if (typeof from !== "string" || from === "") return error(response, 400, "caller-id is required")
    if (typeof cxml !== "string" || FakeTwiml.parse(cxml) === undefined) return error(response, 400, "cxml is not a valid CXML document")
    const behaviour = behaviours.get(to) ?? { answer: "human" }
    if ((!E164.test(to) && !to.startsWith("sip:")) || behaviour.answer === "invalid") {
      return error(response, 400, `destination ${to} is not a valid number`)
    }
    const call = new CloudonixCall({ sid: domain.name, token: domain.apiKey }, to, from, "outbound-api", behaviour, clock, {
      document: cxml,
      statusCallback: typeof body.callback === "string" ? body.callback : undefined,
      // Cloudonix notifies the callback of every change of the session; there is nothing to subscribe to.
      events: new Set(["initiated", "ringing", "answered", "completed"]),
      machineDetection: false,
      timeoutSeconds: 60
    })
    calls.set(call.sid, call)
    json(response, 200, { domainId: 1, subscriberId: null, destination: to, direction: "outbound-api", token: call.sid })
    void call.play()
  }

  const route = (request: Http.IncomingMessage, response: Http.ServerResponse, raw: string) => {
    const url = new URL(request.url ?? "/", "http://fake")
    const [scheme, key] = (request.headers.authorization ?? "").split(" ")
    const callsMatch = /^\/calls\/([^/]+)\/application$/.exec(url.pathname)
    const domainMatch = /^\/customers\/self\/domains\/([^/]+)(\/.*)$/.exec(url.pathname)
    const domainName = decodeURIComponent((callsMatch ?? domainMatch)?.[1] ?? "")
    const domain = domains.get(domainName)
    if (callsMatch === null && domainMatch === null) return error(response, 404, "Not found")
    if (scheme !== "Bearer" || domain === undefined || key !== domain.apiKey) return error(response, 401, "Unauthorized")
    const failure = failures.find((f) => f.count > 0)
    if (failure !== undefined) {
      failure.count--
      return error(response, failure.status, failure.status === 429 ? "Too Many Requests" : "Internal Server Error")
    }
    let body: Record<string, unknown> = {}
    if (raw.trim() !== "") {
      try {
        body = JSON.parse(raw)
      } catch {
        return error(response, 400, "the body is not JSON")
      }
    }
    if (callsMatch !== null) {
      return request.method === "POST" ? createCall(response, domain, body) : error(response, 405, "Method not allowed")
    }
    const path = domainMatch![2]!
    const sessionMatch = /^\/sessions\/([^/]+)$/.exec(path)
    if (sessionMatch !== null) {
      const call = calls.get(decodeURIComponent(sessionMatch[1]!))
      if (call === undefined || call.account.sid !== domain.name) return error(response, 404, "Session not found")
      if (request.method === "GET") return json(response, 200, call.current())
      if (request.method === "DELETE") {
        call.end(call.status === "in-progress" ? "completed" : "canceled")
        return json(response, 204)
      }
    }
    const appMatch = /^\/applications\/([^/]+)(\/dnids)?$/.exec(path)
    if (appMatch !== null) {
      const name = decodeURIComponent(appMatch[1]!)
      const app = applications.get(domain.name)!.get(name)
      if (app === undefined) return error(response, 404, `Application ${name} not found`)
      if (appMatch[2] === undefined && request.method === "PATCH") {
        if (typeof body.url === "string") app.url = body.url
        return json(response, 200, applicationJson(app))
      }
      if (appMatch[2] !== undefined && request.method === "GET") return json(response, 200, listDnids(domain.name, name))
      if (appMatch[2] !== undefined && request.method === "POST") {
        if (typeof body.source !== "string" || body.source === "") return error(response, 400, "source is required")
        const kind = { prefix: body.prefix === true, expression: body.expression === true, asteriskCompatible: body.asteriskCompatible === true }
        const exact = !kind.prefix && !kind.expression && !kind.asteriskCompatible
        if (exact && exactDnid(domain.name, body.source) !== undefined) return error(response, 409, `DNID ${body.source} already exists`)
        attach(domain.name, body.source, name, kind)
        return json(response, 200, listDnids(domain.name).at(-1))
      }
    }
    if (path === "/dnids" && request.method === "GET") return json(response, 200, listDnids(domain.name))
    const dnidMatch = /^\/dnids\/([0-9]+)$/.exec(path)
    if (dnidMatch !== null && request.method === "DELETE") {
      const list = dnids.get(domain.name)!
      if (!list.delete(Number(dnidMatch[1]))) return error(response, 404, "DNID not found")
      return json(response, 204)
    }
    return error(response, 404, "Not found")
  }

  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => route(request, response, Buffer.concat(chunks).toString("utf8")))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as AddressInfo

  /** The exact, active DNID of `number` (Cloudonix would match patterns too; the tests use exact numbers). */
  const dnidOf = (number: string): readonly [Domain, Dnid] | undefined => {
    for (const [name, list] of dnids) {
      const found = [...list.values()].find((d) => isExact(d) && d.active && d.source === number)
      if (found !== undefined) return [domains.get(name)!, found]
    }
    return undefined
  }
  const voiceUrl = (number: string) => {
    const found = dnidOf(number)
    return found === undefined ? null : applications.get(found[0].name)!.get(found[1].application)?.url ?? null
  }

  return {
    url: `http://127.0.0.1:${address.port}`,
    call: (token) => calls.get(token),
    calls: () => [...calls.values()],
    behave: (number, behaviour) => void behaviours.set(number, behaviour),
    failNext: (status, count = 1) => void failures.push({ status, count }),
    application: applicationOf,
    attach,
    dnids: (domain) => listDnids(domain),
    voiceUrl,
    placeInbound: async (input) => {
      const found = dnidOf(input.to)
      const url = voiceUrl(input.to)
      if (found === undefined || url === null) return undefined
      const [domain] = found
      const call = new CloudonixCall(
        { sid: domain.name, token: domain.apiKey },
        input.to,
        input.from,
        "inbound",
        input.behaviour ?? { answer: "human" },
        clock,
        { events: new Set(), machineDetection: false, timeoutSeconds: 60 }
      )
      calls.set(call.sid, call)
      call.status = "ringing"
      const webhook = await call.post(url, call.params(), input.apiKey)
      call.webhookStatus = webhook.status
      if (webhook.status !== 200) {
        call.answers.push(webhook.body)
        call.end("failed")
        return call
      }
      if (!/^\s*(<\?xml[^>]*\?>)?\s*<Response>\s*<Reject\b/.test(webhook.body)) call.answer("human")
      void call.run(webhook.body)
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
