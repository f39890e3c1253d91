/**
 * A faithful fake of a Plivo-compatible carrier on 127.0.0.1, for tests and demos. It checks the
 * dialect's authentication, serves the REST calls the adapter makes and refuses malformed ones with
 * the carrier's error body, plays calls out (`FakeCalls.ts`: ringing, answered, talk, hang-up; busy;
 * no answer after the ring timeout; failed for invalid numbers; machine answers when detection is
 * asked), fetches the answer URL, posts signed callbacks in order, speaks the audio stream protocol
 * (`FakeStream.ts`), keeps applications and numbers, and can place inbound calls.
 *
 *   POST   Call/                       201 {api_id, message: "call fired", request_uuid}
 *   GET    Call/?status=live|queued    {api_id, calls: [...]}
 *   GET    Call/{id}/?status=live      the live call (by call uuid)      ?status=queued: by request uuid
 *   GET    Call/{id}/                  the finished call's record (by call uuid)
 *   DELETE Call/{id}/                  hang up a live call      DELETE Request/{id}/   cancel a queued call
 *   POST   Call/{id}/ {legs, aleg_url} transfer a live call (`FakeDial.ts`)
 *   GET|POST Application/, POST Application/{id}/
 *   POST   Number/{n}/ {app_id} (Plivo)       POST|DELETE numbers/{+n}/application {application_id} (Vobiz)
 */
import { FetchHttpClient, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer, NodeSocket } from "@effect/platform-node"
import { Deferred, Effect, Fiber, FiberSet, Layer, type Scope } from "effect"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type { PlivoDialect } from "../Dialect.js"
import { digits, httpUrl, json, notFound } from "./FakeHttp.js"
import * as FakeDial from "./FakeDial.js"
import * as FakeInventory from "./FakeInventory.js"
import type { StreamLeg, StreamScript } from "./FakeStream.js"
import { type Callback, type Callee, end, type FakeCall, hangups, playInbound, playOutbound, type Player, post, type Services, type Timings } from "./FakeCalls.js"

export type { Callback, Callee, FakeCall, Timings } from "./FakeCalls.js"
export type { Application } from "./FakeInventory.js"
export type { StreamLeg, StreamRecord } from "./FakeStream.js"

export interface Account {
  readonly authId: string
  readonly authToken: string
}

export interface FakeOptions {
  readonly accounts: ReadonlyArray<Account>
  /** Numbers the accounts own (E.164), with the application each is linked to, if any. */
  readonly numbers?: ReadonlyArray<{ readonly number: string; readonly authId: string; readonly appId?: string }>
  /** How the callee of a number behaves; default `human`. */
  readonly callee?: (to: string) => Callee
  readonly timings?: Partial<Timings>
  readonly stream?: Partial<StreamScript>
}

export interface DialectFake {
  readonly dialect: PlivoDialect
  /** Whether a request authenticates as `account` (and names it in its path). */
  readonly authenticates: (headers: Readonly<Record<string, string | undefined>>, account: Account) => boolean
  readonly inboundParams: (call: FakeCall) => Readonly<Record<string, string>>
  /** The number segment of the link path as it should be (`Number/{n}/` or `numbers/{+n}/application`). */
  readonly linkPath: RegExp
}


export interface FakeCarrier {
  readonly url: string
  readonly calls: ReadonlyArray<FakeCall>
  readonly callbacks: ReadonlyArray<Callback>
  readonly requests: ReadonlyArray<{ readonly method: string; readonly path: string; readonly body: unknown }>
  readonly applications: ReadonlyMap<string, FakeInventory.Application>
  /** Number (E.164) → the application it is linked to. */
  readonly links: ReadonlyMap<string, string | undefined>
  /**
   * The next `count` API requests (those `only` selects, default all) answer `status` (429, 500,
   * 503, ...), after the failures already queued.
   */
  readonly failNext: (status: number, count?: number, only?: (method: string, path: string) => boolean) => void
  /** The account (default: the first) owns `number` from now on. */
  readonly own: (number: string, authId?: string) => void
  /** Posts the call's callbacks again (a carrier retrying, or reordering): our server's statuses. */
  readonly resend: (call: FakeCall, order: "same" | "reverse") => Effect.Effect<ReadonlyArray<number | "unreachable">>
  /** Posts the call's last callback again signed with a wrong token, or unsigned: our server's status. */
  readonly forge: (call: FakeCall, kind: "wrong" | "missing") => Effect.Effect<number | "unreachable">
  /** A call, by its call uuid or its request uuid. */
  readonly call: (id: string) => FakeCall | undefined
  /** Waits until the call has ended (its hang-up notice was sent). */
  readonly ended: (call: FakeCall) => Effect.Effect<FakeCall>
  /**
   * Calls `to` from `from`: the number's application is asked what to do (signed with the account's
   * token, or `signature: "wrong"`). A `talking` caller stays on until `hangUpCaller`. Fails for a
   * number without an application.
   */
  readonly placeInbound: (
    input: { readonly from: string; readonly to: string; readonly callee?: Callee; readonly signature?: "wrong" }
  ) => Effect.Effect<FakeCall, string>
  /** The caller (or callee) hangs up. */
  readonly hangUpCaller: (call: FakeCall) => Effect.Effect<void>
  /** Links `number` to an application answering at `answerUrl`, as set in the console (`null`: unlinked). */
  readonly route: (number: string, answerUrl: string | null) => void
  /** The answer URL of the application `number` is linked to, if any. */
  readonly voiceUrl: (number: string) => string | null
}

const defaultTimings: Timings = { queueMillis: 5, ringMillis: 30, noAnswerMillis: 80, talkMillis: 400, machineDetectionMillis: 30 }
const defaultStream: StreamScript = { audio: new Uint8Array(480).fill(0x7f), frameBytes: 160, frameMillis: 20, dtmf: "", playbackSpeed: 10 }

const uuid = () => Crypto.randomUUID()
const validAddress = (to: string) => /^\+?\d{6,15}$/.test(to) || /^sips?:[^@\s]+@[^@\s]+$/.test(to)

export const make = (fake: DialectFake, options: FakeOptions): Effect.Effect<FakeCarrier, never, Scope.Scope> =>
  Effect.gen(function*() {
    const { dialect } = fake
    const context = yield* Layer.build(Layer.mergeAll(FetchHttpClient.layer, NodeSocket.layerWebSocketConstructor))
    const fibers = yield* FiberSet.make()
    const calls: Array<FakeCall> = []
    const callbacks: Array<Callback> = []
    const requests: Array<{ method: string; path: string; body: unknown }> = []
    const applications = new Map<string, FakeInventory.Application>()
    const links = new Map<string, string | undefined>()
    const owners = new Map<string, string>()
    for (const n of options.numbers ?? []) {
      owners.set(digits(n.number), n.authId)
      links.set(`+${digits(n.number)}`, n.appId)
    }
    const failures: Array<{ readonly status: number; readonly only: (method: string, path: string) => boolean }> = []

    const player: Player = {
      dialect,
      timings: { ...defaultTimings, ...options.timings },
      stream: { ...defaultStream, ...options.stream },
      inboundParams: fake.inboundParams,
      dialed: (to) => options.callee?.(to) ?? "human",
      callbacks,
      // Interruptible whatever the caller is (the HTTP server runs its handlers uninterruptibly).
      fork: (effect: Effect.Effect<void, never, Services>) => FiberSet.run(fibers, Effect.interruptible(Effect.provide(effect, context)))
    }

    const newCall = (input: Omit<FakeCall, "status" | "startedAt" | "answeredAt" | "endedAt" | "hangup" | "answerXml" | "stream" | "fiber" | "streamFiber" | "done" | "media" | "reply">) =>
      Effect.map(Effect.all([Deferred.make<void>(), Deferred.make<StreamLeg>(), Deferred.make<Callback>()]), ([done, media, reply]): FakeCall => ({
        ...input,
        status: input.direction === "outbound" ? "queued" : "ringing",
        startedAt: Date.now(),
        answeredAt: undefined,
        endedAt: undefined,
        hangup: undefined,
        answerXml: undefined,
        stream: undefined,
        fiber: undefined,
        streamFiber: undefined,
        done,
        media,
        reply
      }))

    const inventory = FakeInventory.make(fake, { applications, links, owners })
    const live = (c: FakeCall) => c.status === "ringing" || c.status === "in-progress"

    const placeCall = (account: Account, body: Record<string, unknown>) =>
      Effect.gen(function*() {
        const missing = ["from", "to", "answer_url"].filter((k) => typeof body[k] !== "string" || body[k] === "")
        if (missing.length > 0) return json(400, { error: `${missing.join(", ")} must be present` })
        const to = body.to as string
        if (to.includes("<")) return json(400, { error: "bulk calls are not supported by this fake" })
        const callee = options.callee?.(to.startsWith("sip") ? to : `+${digits(to)}`) ?? "human"
        if (!validAddress(to) || callee === "invalid") return json(400, { error: `invalid 'to' number: ${to}` })
        if (!validAddress(body.from as string)) return json(400, { error: `invalid 'from' number: ${String(body.from)}` })
        for (const k of ["answer_url", "ring_url", "hangup_url", "machine_detection_url"]) {
          if (body[k] !== undefined && !httpUrl(body[k])) return json(400, { error: `${k} is not a valid URL` })
        }
        if (body.machine_detection !== undefined && body.machine_detection !== "true" && body.machine_detection !== "hangup") {
          return json(400, { error: "machine_detection must be true or hangup" })
        }
        const requestUuid = uuid()
        const call = yield* newCall({
          // Vobiz's request uuid is the call's; Plivo names the call separately.
          callUuid: dialect.requestIsCall ? requestUuid : uuid(),
          requestUuid,
          direction: "outbound",
          account,
          from: body.from as string,
          to,
          callee,
          answerUrl: body.answer_url as string,
          ringUrl: body.ring_url as string | undefined,
          hangupUrl: body.hangup_url as string | undefined,
          machineDetection: body.machine_detection as string | undefined,
          machineDetectionUrl: body.machine_detection_url as string | undefined
        })
        calls.push(call)
        call.fiber = yield* player.fork(playOutbound(player, call))
        return json(201, { message: "call fired", request_uuid: call.requestUuid })
      })

    /**
     * Stops the call's script and ends it (a script already ending finishes first). The API answers at
     * once; the hang-up notice follows on its own, as Plivo sends it.
     */
    const hangUp = (call: FakeCall, hangup = call.status === "in-progress" ? hangups.apiAnswered : hangups.apiCancel) =>
      Effect.gen(function*() {
        if (call.fiber !== undefined) yield* Fiber.interrupt(call.fiber)
        call.fiber = yield* player.fork(end(player, call, hangup))
      })

    const api = (account: Account, method: string, path: ReadonlyArray<string>, query: URLSearchParams, body: Record<string, unknown>) =>
      Effect.gen(function*() {
        const [resource, id, sub] = path
        const status = query.get("status")
        if (resource === "Call" && id === undefined && method === "POST") return yield* placeCall(account, body)
        const mine = calls.filter((c) => c.account.authId === account.authId)
        if (resource === "Call" && id === undefined && method === "GET") {
          if (status === "live") {
            const to = query.get("to_number")
            const from = query.get("from_number")
            const direction = query.get("call_direction")
            return json(200, {
              calls: mine.filter((c) =>
                live(c) && (to === null || digits(c.to) === digits(to)) && (from === null || digits(c.from) === digits(from)) &&
                (direction === null || c.direction === direction)
              ).map((c) => c.callUuid)
            })
          }
          if (status === "queued") return json(200, { calls: mine.filter((c) => c.status === "queued").map((c) => c.requestUuid) })
          return json(200, { meta: { limit: 20, offset: 0, next: null, total_count: mine.length }, objects: [] })
        }
        if (resource === "Call" && id !== undefined && method === "GET") {
          if (status === "queued") {
            const q = mine.find((c) => c.requestUuid === id && c.status === "queued")
            return q === undefined
              ? notFound()
              : json(200, { call_status: "queued", direction: "outbound", from: q.from, to: q.to, request_uuid: q.requestUuid, call_uuid: q.callUuid })
          }
          if (status === "live") {
            const l = mine.find((c) => c.callUuid === id && live(c))
            return l === undefined ? notFound() : json(200, {
              call_status: l.status,
              call_uuid: l.callUuid,
              request_uuid: l.requestUuid ?? null,
              direction: l.direction,
              from: l.from,
              to: l.to,
              caller_name: l.from,
              session_start: new Date(l.startedAt).toISOString()
            })
          }
          const record = mine.find((c) => c.callUuid === id && c.status === "ended")
          if (record === undefined) return notFound()
          const answered = record.answeredAt !== undefined
          const duration = answered ? Math.max(1, Math.round((record.endedAt! - record.answeredAt!) / 1000)) : 0
          return json(200, {
            call_uuid: record.callUuid,
            call_direction: record.direction,
            from_number: record.from,
            to_number: record.to,
            answer_time: answered ? new Date(record.answeredAt!).toISOString() : null,
            end_time: new Date(record.endedAt!).toISOString(),
            initiation_time: new Date(record.startedAt).toISOString(),
            call_duration: duration,
            bill_duration: duration,
            hangup_cause_name: record.hangup!.causeName,
            hangup_cause_code: record.hangup!.code,
            hangup_source: record.hangup!.source
          })
        }
        if (resource === "Call" && id !== undefined && method === "DELETE") {
          const l = mine.find((c) => c.callUuid === id && live(c))
          if (l === undefined) return notFound()
          yield* hangUp(l)
          return HttpServerResponse.empty({ status: 204 })
        }
        if (resource === "Request" && id !== undefined && method === "DELETE") {
          const q = mine.find((c) => c.requestUuid === id && c.status === "queued")
          if (q === undefined) return notFound()
          yield* hangUp(q, hangups.apiCancel)
          return HttpServerResponse.empty({ status: 204 })
        }
        if (resource === "Call" && id !== undefined && method === "POST") {
          return yield* FakeDial.transferRoute(player, mine.find((c) => c.callUuid === id), body)
        }
        if (resource === "Application") return inventory.applications(account, method, id, query, body)
        return inventory.numbers(account, method, [resource, id, sub], body)
      })

    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const url = new URL(request.url, "http://fake")
      const text = yield* Effect.orElseSucceed(request.text, () => "")
      let body: Record<string, unknown> = {}
      if (text !== "") {
        try {
          body = (request.headers["content-type"] ?? "").includes("json") ? JSON.parse(text) : Object.fromEntries(new URLSearchParams(text))
        } catch {
          return json(400, { error: "the body is not valid JSON" })
        }
      }
      requests.push({ method: request.method, path: `${url.pathname}${url.search}`, body })
      const prefix = `${dialect.apiPrefix}/Account/`
      if (!url.pathname.startsWith(prefix)) return notFound()
      const [authId, ...rest] = url.pathname.slice(prefix.length).split("/").filter((s) => s !== "")
      const account = options.accounts.find((a) => a.authId === decodeURIComponent(authId ?? ""))
      if (account === undefined || !fake.authenticates(request.headers, account)) return json(401, { error: "Authentication credentials invalid" })
      const failure = failures[0]
      if (failure !== undefined && failure.only(request.method, url.pathname)) {
        failures.shift()
        return json(failure.status, { error: failure.status === 429 ? "too many requests" : "internal server error" })
      }
      return yield* api(account, request.method, rest, url.searchParams, body)
    })

    const server = yield* NodeHttpServer.make(() => Http.createServer(), { port: 0, host: "127.0.0.1" }).pipe(Effect.orDie)
    yield* server.serve(app)
    const address = server.address
    const port = address._tag === "TcpAddress" ? address.port : 0

    return {
      url: `http://127.0.0.1:${port}`,
      calls,
      callbacks,
      requests,
      applications,
      links,
      failNext: (status, count = 1, only = () => true) => {
        for (let i = 0; i < count; i++) failures.push({ status, only })
      },
      own: (number, authId = options.accounts[0]!.authId) => {
        owners.set(digits(number), authId)
        if (!links.has(`+${digits(number)}`)) links.set(`+${digits(number)}`, undefined)
      },
      resend: (call, order) =>
        Effect.gen(function*() {
          const sent = callbacks.filter((c) => c.params.CallUUID === call.callUuid)
          const again = order === "same" ? sent : [...sent].reverse()
          const statuses: Array<number | "unreachable"> = []
          for (const c of again) statuses.push((yield* Effect.provide(post(player, call, c.url, { ...c.params }), context)).status)
          return statuses
        }),
      forge: (call, kind) =>
        Effect.gen(function*() {
          const last = callbacks.filter((c) => c.params.CallUUID === call.callUuid).at(-1)
          if (last === undefined) return "unreachable" as const
          const forged = kind === "missing" ? undefined : { ...call.account, authToken: `${call.account.authToken}-forged` }
          return (yield* Effect.provide(post(player, { ...call, account: forged ?? call.account }, last.url, { ...last.params }, kind === "missing"), context)).status
        }),
      call: (id) => calls.find((c) => c.callUuid === id || c.requestUuid === id),
      ended: (call) => Effect.as(Deferred.await(call.done), call),
      hangUpCaller: (call) => hangUp(call, hangups.caller),
      route: (number, answerUrl) => {
        const owner = owners.get(digits(number)) ?? options.accounts[0]!.authId
        owners.set(digits(number), owner)
        if (answerUrl === null) return void links.set(`+${digits(number)}`, undefined)
        const appId = `console-${applications.size + 1}`
        applications.set(appId, { appId, authId: owner, appName: `console ${number}`, answerUrl, hangupUrl: undefined })
        links.set(`+${digits(number)}`, appId)
      },
      voiceUrl: (number) => {
        const appId = links.get(`+${digits(number)}`)
        return appId === undefined ? null : applications.get(appId)?.answerUrl ?? null
      },
      placeInbound: ({ callee, from, signature, to }) =>
        Effect.gen(function*() {
          const number = `+${digits(to)}`
          const owner = options.accounts.find((a) => a.authId === owners.get(digits(to)))
          const appId = links.get(number)
          const application = appId === undefined ? undefined : applications.get(appId)
          if (owner === undefined || application === undefined) return yield* Effect.fail(`${number} is not linked to an application`)
          const call = yield* newCall({
            callUuid: uuid(),
            requestUuid: undefined,
            direction: "inbound",
            account: signature === "wrong" ? { ...owner, authToken: `${owner.authToken}-forged` } : owner,
            from: digits(from),
            to: digits(to),
            callee: callee ?? "human",
            answerUrl: application.answerUrl,
            ringUrl: undefined,
            hangupUrl: application.hangupUrl,
            machineDetection: undefined,
            machineDetectionUrl: undefined
          })
          calls.push(call)
          call.fiber = yield* player.fork(playInbound(player, call))
          return call
        })
    } satisfies FakeCarrier
  })
