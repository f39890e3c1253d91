/**
 * A fake Cloudonix on 127.0.0.1 for tests, faithful to what the adapter relies on (and, where
 * Cloudonix's documentation is thin, to what the reference implementation shows it sends):
 *
 * - REST (JSON, `Authorization: Bearer <domain API key>`, 401 otherwise): `POST /calls/{domain}/
 *   application` (refusing a missing `destination` or `caller-id`, a malformed destination, a CXML it
 *   cannot read), session lookup and `DELETE` (hang-up), voice application `PATCH`, DNID list, attach
 *   and detach;
 * - calls played out like Twilio's (Cloudonix runs Twilio's dialect): ringing, answered, talk, hang-up;
 *   busy; no-answer; failed; the placed CXML run (its `<Redirect>` fetched), media streams in Twilio's
 *   protocol, status callbacks as Twilio-like form posts with `Session` and `Domain`;
 * - every request to the server carries the domain's API key in `x-cx-apikey` (Cloudonix signs nothing);
 * - incoming calls to a DNID, posted to its application's URL.
 *
 * Knobs: `behave(number, behaviour)`, `failNext` for 429/5xx, `secondMillis` to scale time.
 */
import { type Behaviour, FakeCall } from "@agentline/telephony-twilio/testing/FakeCall"
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
  readonly name: string
  url: string | null
}

interface Dnid {
  readonly id: number
  readonly source: string
  application: string
}

/** One Cloudonix session: a call, in Twilio's dialect, named by its session token. */
export class CloudonixCall extends FakeCall {
  override readonly sid = `${Crypto.randomBytes(12).toString("hex")}`

  override params(extra: Record<string, string | undefined> = {}): Array<readonly [string, string]> {
    return super.params({ Domain: this.account.sid, Session: this.sid, ...extra })
  }

  override authHeaders(_url: string, _params: ReadonlyArray<readonly [string, string]>, token: string): Record<string, string> {
    return { "x-cx-apikey": token, "user-agent": "Cloudonix-Voice-Application/1.0" }
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
  /** Attaches `number` as a DNID of the application `name` (moving it if it is elsewhere). */
  readonly attach: (domain: string, number: string, application: string) => void
  /** Where an incoming call to `number` is posted now, or null. */
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

export const start = async (options: {
  readonly domains: ReadonlyArray<Domain>
  /** Real milliseconds per Cloudonix second (default 1000). */
  readonly secondMillis?: number
}): Promise<FakeCloudonix> => {
  const clock = { secondMillis: options.secondMillis ?? 1000 }
  const domains = new Map(options.domains.map((d) => [d.name, d]))
  const applications = new Map<string, Map<string, Application>>(options.domains.map((d) => [d.name, new Map()]))
  const dnids = new Map<string, Map<string, Dnid>>(options.domains.map((d) => [d.name, new Map()]))
  const calls = new Map<string, CloudonixCall>()
  const behaviours = new Map<string, Behaviour>()
  const failures: Array<Failure> = []
  let nextDnid = 1

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
    const created = { name, url: url ?? null }
    apps.set(name, created)
    return created
  }

  const attach = (domain: string, number: string, application: string) => {
    const list = dnids.get(domain)!
    const found = list.get(number)
    if (found !== undefined) found.application = application
    else list.set(number, { id: nextDnid++, source: number, application })
  }

  const session = (call: CloudonixCall) => ({
    token: call.sid,
    domain: call.account.sid,
    destination: call.to,
    callerId: call.from,
    direction: call.direction === "inbound" ? "incoming" : "outgoing",
    status: call.status,
    callDuration: call.isOver ? call.durationSeconds : null
  })

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
      // Cloudonix reports every progress event to the callback; there is nothing to subscribe to.
      events: new Set(["initiated", "ringing", "answered", "completed"]),
      machineDetection: false,
      timeoutSeconds: 60
    })
    calls.set(call.sid, call)
    json(response, 200, { token: call.sid, domainId: domain.name, subscriberId: from })
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
      if (request.method === "GET") return json(response, 200, session(call))
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
        return json(response, 200, { name: app.name, url: app.url, method: "POST", type: "cxml", active: true })
      }
      if (appMatch[2] !== undefined && request.method === "POST") {
        if (typeof body.source !== "string" || body.source === "") return error(response, 400, "source is required")
        if (dnids.get(domain.name)!.has(body.source)) return error(response, 409, `DNID ${body.source} already exists`)
        attach(domain.name, body.source, name)
        const dnid = dnids.get(domain.name)!.get(body.source)!
        return json(response, 201, { id: dnid.id, source: dnid.source, application: dnid.application })
      }
    }
    if (path === "/dnids" && request.method === "GET") {
      return json(response, 200, [...dnids.get(domain.name)!.values()].map((d) => ({ ...d })))
    }
    const dnidMatch = /^\/dnids\/([0-9]+)$/.exec(path)
    if (dnidMatch !== null && request.method === "DELETE") {
      const list = dnids.get(domain.name)!
      const found = [...list.values()].find((d) => d.id === Number(dnidMatch[1]))
      if (found === undefined) return error(response, 404, "DNID not found")
      list.delete(found.source)
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

  const dnidOf = (number: string): readonly [Domain, Dnid] | undefined => {
    for (const [name, list] of dnids) {
      const found = list.get(number)
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
      const webhook = await call.post(url, call.params({ AccountSid: domain.name, Direction: "inbound" }), input.apiKey)
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
