/**
 * A fake Acme Voice on 127.0.0.1, for the adapter's tests, made of the kit's fake-carrier blocks
 * (`FakeHttp` for the API with its 401s and injected 429/5xx, `FakeCallees` for how dialed numbers
 * behave; a call is `FakeAcmeCall`):
 *
 *   POST /v1/accounts/{account}/calls              201 {id, status}; 400 {error} for a number Acme will not dial;
 *                                                  a repeated Idempotency-Key answers the call it placed
 *   POST /v1/accounts/{account}/calls/{id}/hangup  200; 409 once the call is over; 404 for an unknown call
 *   GET  /v1/accounts/{account}/calls/{id}         {id, status, duration}
 *   PUT  /v1/accounts/{account}/numbers/{number}   {voice_url}: 404 for a number the account does not own
 *
 * and incoming calls: `placeInbound` posts a number's voice URL `{event: "call.incoming", ...}`, signed,
 * and runs the call flow it answers.
 */
import * as FakeCallees from "@agentline/telephony-kit/testing/FakeCallees"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import { sign } from "../Callbacks.js"
import { type Behaviour, FakeAcmeCall, newCallId } from "./FakeAcmeCall.js"

export { type Behaviour, FakeAcmeCall } from "./FakeAcmeCall.js"

export interface Account {
  readonly id: string
  readonly apiKey: string
  readonly webhookSecret: string
}

export interface FakeAcme {
  readonly url: string
  readonly calls: () => ReadonlyArray<FakeAcmeCall>
  readonly call: (id: string) => FakeAcmeCall | undefined
  readonly behave: (number: string, behaviour: Behaviour) => void
  readonly failNext: (status: number, count?: number) => void
  /** The account owns `number` (it can be configured and called). */
  readonly own: (number: string) => void
  /** Where calls to `number` are announced (its voice URL), or null. */
  readonly voiceUrl: (number: string) => string | null
  readonly setVoiceUrl: (number: string, url: string | null) => void
  /** A caller dials `to`: its voice URL is posted (signed, or with another secret) and the answer's flow run. */
  readonly placeInbound: (input: { readonly to: string; readonly from: string; readonly secret?: string }) => Promise<{
    readonly call: FakeAcmeCall
    readonly status: number
    readonly actions: ReadonlyArray<Readonly<Record<string, unknown>>>
  }>
  readonly close: () => Promise<void>
}

const E164 = /^\+[1-9][0-9]{7,14}$/

export const start = async (options: { readonly account: Account; readonly secondMillis: number }): Promise<FakeAcme> => {
  const { account } = options
  const calls = new Map<string, FakeAcmeCall>()
  const byKey = new Map<string, FakeAcmeCall>()
  const callees = FakeCallees.make<Behaviour>()
  const numbers = new Map<string, string | null>()
  const error = (status: number, message: string) => FakeHttp.json(status, { error: message })
  const resource = (call: FakeAcmeCall) => ({ id: call.id, status: call.status, duration: call.durationSeconds })
  const PATH = /^\/v1\/accounts\/([^/]+)(\/.*)$/

  const placeCall = (request: FakeHttp.FakeRequest): FakeHttp.FakeResponse => {
    const key = request.headers["idempotency-key"]
    const again = typeof key === "string" ? byKey.get(key) : undefined
    if (again !== undefined) return FakeHttp.json(200, resource(again))
    const body = FakeJson.parse(request.body)
    const to = FakeJson.text(body, "to")
    const statusCallback = FakeJson.text(body, "status_callback")
    const actions = FakeJson.at(body, "actions")
    if (to === undefined || statusCallback === undefined || !Array.isArray(actions)) return error(400, "to, status_callback and actions are required")
    const behaviour = callees.dial(to) ?? { answer: "human" }
    if (!E164.test(to) || behaviour.answer === "invalid") return error(400, `Acme cannot dial ${to}: not a valid number`)
    const call = new FakeAcmeCall(account.webhookSecret, behaviour, options.secondMillis, {
      statusCallback,
      actions: actions.filter(FakeJson.isObject)
    })
    calls.set(call.id, call)
    if (typeof key === "string") byKey.set(key, call)
    void call.play()
    return FakeHttp.json(201, resource(call))
  }

  const api = await FakeHttp.serve({
    authenticate: (request) => {
      const match = PATH.exec(request.path)
      if (match === null) return error(404, "not found")
      if (request.headers.authorization !== `Bearer ${account.apiKey}`) return error(401, "unauthorized")
      return decodeURIComponent(match[1]!) === account.id ? undefined : error(404, "no such account")
    },
    failure: (status) => error(status, status === 429 ? "slow down" : "Acme is having a moment"),
    route: (request) => {
      const path = PATH.exec(request.path)![2]!
      if (path === "/calls" && request.method === "POST") return placeCall(request)
      const callMatch = /^\/calls\/([^/]+)(\/hangup)?$/.exec(path)
      if (callMatch !== null) {
        const call = calls.get(decodeURIComponent(callMatch[1]!))
        if (call === undefined) return error(404, "no such call")
        if (callMatch[2] === undefined && request.method === "GET") return FakeHttp.json(200, resource(call))
        if (callMatch[2] !== undefined && request.method === "POST") {
          if (call.isOver) return error(409, "the call is over")
          call.hangUp()
          return FakeHttp.json(200, resource(call))
        }
      }
      const numberMatch = /^\/numbers\/([^/]+)$/.exec(path)
      if (numberMatch !== null && request.method === "PUT") {
        const number = decodeURIComponent(numberMatch[1]!)
        if (!numbers.has(number)) return error(404, `the account does not own ${number}`)
        const url = FakeJson.at(FakeJson.parse(request.body), "voice_url")
        numbers.set(number, typeof url === "string" ? url : null)
        return FakeHttp.json(200, { number, voice_url: numbers.get(number) })
      }
      return error(404, "not found")
    },
    onClose: () => {
      for (const call of calls.values()) call.hangUp()
    }
  })

  return {
    url: api.url,
    calls: () => [...calls.values()],
    call: (id) => calls.get(id),
    behave: (number, behaviour) => callees.behave(number, behaviour),
    failNext: (status, count = 1) => api.failNext(status, count),
    own: (number) => void (numbers.has(number) ? undefined : numbers.set(number, null)),
    voiceUrl: (number) => numbers.get(number) ?? null,
    setVoiceUrl: (number, url) => void numbers.set(number, url),
    placeInbound: async ({ from, secret, to }) => {
      const url = numbers.get(to)
      if (url == null) throw new Error(`${to} has no voice URL`)
      const id = newCallId()
      const body = JSON.stringify({ event: "call.incoming", account_id: account.id, call_id: id, from, to })
      const signature = sign(secret ?? account.webhookSecret, Math.floor(Date.now() / 1000), new TextEncoder().encode(body))
      const answered = await FakeHttp.postJson(url, body, { "acme-signature": signature })
      const actions = FakeJson.at(FakeJson.parse(answered.body), "actions")
      const flow = Array.isArray(actions) ? actions.filter(FakeJson.isObject) : []
      const running = new FakeAcmeCall(account.webhookSecret, { answer: "human", talkSeconds: 1000 }, options.secondMillis, {
        id,
        statusCallback: undefined,
        actions: flow
      })
      calls.set(id, running)
      const first = flow[0]?.type
      if (answered.status !== 200 || first === "reject") running.end("canceled")
      else if (first === "busy") running.end("busy")
      else running.answer()
      return { call: running, status: answered.status, actions: flow }
    },
    close: api.close
  }
}
