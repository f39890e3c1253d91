/**
 * A fake Cloudonix on 127.0.0.1 for tests, sending what Cloudonix's public documentation says it sends
 * (the pages are named in docs/providers/cloudonix.md) and, where the documentation is silent, what
 * integrations that talk to Cloudonix show:
 *
 * - REST (JSON, `Authorization: Bearer <domain API key>`, 401 otherwise): `POST /calls/{domain}/
 *   application` (refusing a missing `destination` or `caller-id`, a malformed destination, a CXML it
 *   cannot read), session lookup and `DELETE` (hang-up) at `/calls/{domain}/sessions/{token}`, a
 *   running session handed new CXML (`POST .../sessions/{token}/application`: a transfer's `<Dial>`,
 *   its target played as `behave` says and its result posted to the dial's `action`, JSON with the
 *   dial's status in `CallStatus`), voice
 *   application `PATCH`, DNID list, attach
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
import * as FakeCallees from "@agentline/telephony-kit/testing/FakeCallees"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import type { Behaviour } from "@agentline/telephony-twilio/testing/FakeCall"
import * as FakeTwiml from "@agentline/telephony-twilio/testing/FakeTwiml"
import { CloudonixCall } from "./FakeCloudonixCall.js"

export type { Behaviour } from "@agentline/telephony-twilio/testing/FakeCall"
export { CloudonixCall } from "./FakeCloudonixCall.js"

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
  const callees = FakeCallees.make<Behaviour>()
  let nextId = 1

  const error = (status: number, message: string) => FakeHttp.json(status, { status, message })

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

  const createCall = (domain: Domain, body: Record<string, unknown>) => {
    const to = body.destination
    const from = body["caller-id"]
    const cxml = body.cxml
    if (typeof to !== "string" || to === "") return error(400, "destination is required")
    if (typeof from !== "string" || from === "") return error(400, "caller-id is required")
    if (typeof cxml !== "string" || FakeTwiml.parse(cxml) === undefined) return error(400, "cxml is not a valid CXML document")
    const behaviour = callees.dial(to) ?? { answer: "human" }
    if ((!E164.test(to) && !to.startsWith("sip:")) || behaviour.answer === "invalid") {
      return error(400, `destination ${to} is not a valid number`)
    }
    const call = new CloudonixCall({ sid: domain.name, token: domain.apiKey }, to, from, "outbound-api", behaviour, clock, {
      document: cxml,
      statusCallback: typeof body.callback === "string" ? body.callback : undefined,
      // Cloudonix notifies the callback of every change of the session; there is nothing to subscribe to.
      events: new Set(["initiated", "ringing", "answered", "completed"]),
      machineDetection: false,
      timeoutSeconds: 60,
      dialed: (target) => callees.dial(target) ?? { answer: "human" }
    })
    calls.set(call.sid, call)
    void call.play()
    return FakeHttp.json(200, { domainId: 1, subscriberId: null, destination: to, direction: "outbound-api", token: call.sid })
  }

  const CALLS = /^\/calls\/([^/]+)(\/.*)$/
  const DOMAIN = /^\/customers\/self\/domains\/([^/]+)(\/.*)$/
  const domainOf = (path: string) => domains.get(decodeURIComponent((CALLS.exec(path) ?? DOMAIN.exec(path))?.[1] ?? ""))

  /** A session (`/calls/{domain}/sessions/{token}`): looked up, or deleted (the call hung up). */
  const session = (request: FakeHttp.FakeRequest, domain: Domain, token: string) => {
    const call = calls.get(token)
    if (call === undefined || call.account.sid !== domain.name) return error(404, "Session not found")
    if (request.method === "GET") return FakeHttp.json(200, call.current())
    if (request.method === "DELETE") {
      call.end(call.status === "in-progress" ? "completed" : "canceled")
      return FakeHttp.json(204)
    }
    return error(405, "Method not allowed")
  }

  /**
   * A running session handed a new voice application (`POST /calls/{domain}/sessions/{token}/application`,
   * `{"cxml": ...}`): what it ran stops (a media stream gets its `stop`), the new CXML runs. A session
   * that is over is refused (409: Cloudonix's answer there is not documented).
   */
  const updateApplication = (request: FakeHttp.FakeRequest, domain: Domain, token: string, body: Record<string, unknown>) => {
    const call = calls.get(token)
    if (call === undefined || call.account.sid !== domain.name) return error(404, "Session not found")
    if (request.method !== "POST") return error(405, "Method not allowed")
    if (call.isOver) return error(409, "Session is not active")
    if (typeof body.cxml !== "string" || FakeTwiml.parse(body.cxml) === undefined) return error(400, "cxml is not a valid CXML document")
    call.redirect(body.cxml)
    return FakeHttp.json(200, call.current())
  }

  const route = (request: FakeHttp.FakeRequest): FakeHttp.FakeResponse => {
    const domain = domainOf(request.path)!
    let body: Record<string, unknown> = {}
    if (request.body.trim() !== "") {
      try {
        body = JSON.parse(request.body)
      } catch {
        return error(400, "the body is not JSON")
      }
    }
    const calling = CALLS.exec(request.path)
    if (calling !== null) {
      if (calling[2] === "/application") return request.method === "POST" ? createCall(domain, body) : error(405, "Method not allowed")
      const sessionMatch = /^\/sessions\/([^/]+)(\/application)?$/.exec(calling[2]!)
      if (sessionMatch === null) return error(404, "Not found")
      const token = decodeURIComponent(sessionMatch[1]!)
      return sessionMatch[2] === undefined ? session(request, domain, token) : updateApplication(request, domain, token, body)
    }
    const path = DOMAIN.exec(request.path)![2]!
    const appMatch = /^\/applications\/([^/]+)(\/dnids)?$/.exec(path)
    if (appMatch !== null) {
      const name = decodeURIComponent(appMatch[1]!)
      const app = applications.get(domain.name)!.get(name)
      if (app === undefined) return error(404, `Application ${name} not found`)
      if (appMatch[2] === undefined && request.method === "PATCH") {
        if (typeof body.url === "string") app.url = body.url
        return FakeHttp.json(200, applicationJson(app))
      }
      if (appMatch[2] !== undefined && request.method === "GET") return FakeHttp.json(200, listDnids(domain.name, name))
      if (appMatch[2] !== undefined && request.method === "POST") {
        if (typeof body.source !== "string" || body.source === "") return error(400, "source is required")
        const kind = { prefix: body.prefix === true, expression: body.expression === true, asteriskCompatible: body.asteriskCompatible === true }
        const exact = !kind.prefix && !kind.expression && !kind.asteriskCompatible
        if (exact && exactDnid(domain.name, body.source) !== undefined) return error(409, `DNID ${body.source} already exists`)
        attach(domain.name, body.source, name, kind)
        return FakeHttp.json(200, listDnids(domain.name).at(-1))
      }
    }
    if (path === "/dnids" && request.method === "GET") return FakeHttp.json(200, listDnids(domain.name))
    const dnidMatch = /^\/dnids\/([0-9]+)$/.exec(path)
    if (dnidMatch !== null && request.method === "DELETE") {
      const list = dnids.get(domain.name)!
      if (!list.delete(Number(dnidMatch[1]))) return error(404, "DNID not found")
      return FakeHttp.json(204)
    }
    return error(404, "Not found")
  }

  const api = await FakeHttp.serve({
    authenticate: (request) => {
      if (!CALLS.test(request.path) && !DOMAIN.test(request.path)) return error(404, "Not found")
      const [scheme, key] = (request.headers.authorization ?? "").split(" ")
      const domain = domainOf(request.path)
      return scheme === "Bearer" && domain !== undefined && key === domain.apiKey ? undefined : error(401, "Unauthorized")
    },
    failure: (status) => error(status, status === 429 ? "Too Many Requests" : "Internal Server Error"),
    route,
    onClose: () => {
      for (const call of calls.values()) call.end(call.status === "in-progress" ? "completed" : "canceled")
    }
  })

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
    url: api.url,
    call: (token) => calls.get(token),
    calls: () => [...calls.values()],
    behave: callees.behave,
    failNext: (status, count = 1) => api.failNext(status, count),
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
        { events: new Set(), machineDetection: false, timeoutSeconds: 60, dialed: (target) => callees.dial(target) ?? { answer: "human" } }
      )
      calls.set(call.sid, call)
      call.status = "ringing"
      const webhook = await call.request(url, call.params(), input.apiKey)
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
    close: api.close
  }
}
