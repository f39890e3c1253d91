/**
 * The fake carrier's transfer of a live call, as Plivo documents it:
 *
 *   POST Call/{call_uuid}/  {legs: "aleg", aleg_url, aleg_method}   202 {message: "call transferred", api_id}
 *
 * What the A leg ran stops (its stream is closed by the carrier), the `aleg_url` is fetched (a signed
 * POST) and its `<Dial>` run: one `<Number>` or `<User>` (SIP URI), dialed as the fake's callees behave.
 * The dial's `callbackUrl` hears `DialAction=answer` when the person picks up and `DialAction=hangup`
 * when they hang up; its `action` gets `DialStatus` (completed, busy, failed, no-answer),
 * `DialRingStatus`, `DialHangupCause`, `DialALegUUID`, `DialBLegUUID` once the dial is over, and the
 * document it answers runs (`<Hangup/>` ends the call; nothing left: "End Of XML Instructions").
 * Transferring the B leg, or both, is not part of the fake.
 */
import { Effect, Fiber } from "effect"
import * as Crypto from "node:crypto"
import { digits, httpUrl, json, notFound } from "./FakeHttp.js"
import { end, type FakeCall, hangups, type Player, post } from "./FakeCalls.js"

export interface DialVerb {
  readonly target: string
  readonly action: string | undefined
  readonly callbackUrl: string | undefined
  readonly timeoutSeconds: number
  readonly callerId: string | undefined
}

const attribute = (tag: string, name: string) => tag.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1]
const unescape = (text: string) =>
  text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&amp;/g, "&")

/** A transfer document's `<Dial>`, `hangup` for one that only hangs up, undefined for one the carrier cannot run. */
export const parseDial = (xml: string): DialVerb | "hangup" | undefined => {
  if (!/<Response>[\s\S]*<\/Response>/.test(xml)) return undefined
  const dial = /<Dial\b([^>]*)>\s*<(Number|User)\b[^>]*>([^<]+)<\/(?:Number|User)>\s*<\/Dial>/.exec(xml)
  if (dial === null) return /<Hangup\b/.test(xml) ? "hangup" : undefined
  const tag = dial[1]!
  const target = unescape(dial[3]!.trim())
  if (dial[2] === "User" ? !/^sips?:[^@\s]+@\S+$/.test(target) : !/^\d{6,15}$/.test(target)) return undefined
  const url = (name: string) => {
    const value = attribute(tag, name)
    return value === undefined ? undefined : unescape(value)
  }
  const action = url("action")
  const callbackUrl = url("callbackUrl")
  if ((action !== undefined && !httpUrl(action)) || (callbackUrl !== undefined && !httpUrl(callbackUrl))) return undefined
  return { target, action, callbackUrl, timeoutSeconds: Number(attribute(tag, "timeout") ?? "30"), callerId: attribute(tag, "callerId") }
}

/** Dials the target: callbacks while it rings and talks, then the action; the action's answer. */
const dial = (player: Player, call: FakeCall, verb: DialVerb) =>
  Effect.gen(function*() {
    const t = player.timings
    const callee = player.dialed(verb.target.startsWith("sip") ? verb.target : `+${digits(verb.target)}`)
    const bLeg = Crypto.randomUUID()
    const notice = (params: Record<string, string>) =>
      verb.callbackUrl === undefined ? Effect.void : Effect.asVoid(post(player, call, verb.callbackUrl, {
        DialALegUUID: call.callUuid,
        DialBLegUUID: bLeg,
        DialBLegTo: verb.target,
        DialBLegFrom: verb.callerId ?? call.from,
        DialBLegPosition: "1",
        ...params
      }))
    let status: string
    let cause: string
    let answered = false
    if (callee === "failed" || callee === "invalid") {
      status = "failed"
      cause = "UNALLOCATED_NUMBER"
    } else if (callee === "no-answer") {
      yield* Effect.sleep(Math.min(verb.timeoutSeconds * 1000, t.noAnswerMillis))
      status = "no-answer"
      cause = "NO_ANSWER"
    } else {
      yield* Effect.sleep(t.ringMillis)
      if (callee === "busy") {
        status = "busy"
        cause = "USER_BUSY"
      } else {
        answered = true
        yield* notice({ Event: "DialAnswer", DialAction: "answer", DialBLegStatus: "answer" })
        yield* Effect.sleep(callee === "talking" ? 3_600_000 : t.talkMillis)
        yield* notice({ Event: "DialHangup", DialAction: "hangup", DialBLegStatus: "hangup", DialBLegHangupCauseName: "Normal Hangup" })
        status = "completed"
        cause = "NORMAL_CLEARING"
      }
    }
    if (verb.action === undefined) return undefined
    const reply = yield* post(player, call, verb.action, {
      DialStatus: status,
      DialRingStatus: String(status !== "failed"),
      DialHangupCause: cause,
      DialALegUUID: call.callUuid,
      DialBLegUUID: answered ? bLeg : ""
    })
    return reply.status === 200 ? reply.body : undefined
  })

/** The A leg runs the transfer's document, fetched from `url`. */
const run = (player: Player, call: FakeCall, url: string) =>
  Effect.gen(function*() {
    const reply = yield* post(player, call, url, { CallStatus: "in-progress" })
    const verb = reply.status === 200 ? parseDial(reply.body) : undefined
    if (verb === undefined) return yield* end(player, call, hangups.answerUrlFailed)
    if (verb === "hangup") return yield* end(player, call, hangups.answerXml)
    call.dialedTo = verb.target
    const next = yield* dial(player, call, verb)
    return yield* end(player, call, next !== undefined && /<Hangup\b/.test(next) ? hangups.answerXml : hangups.endOfXml)
  })

/** `POST Call/{id}/`: the live call `live` (undefined: none by that id) transferred as the body asks. */
export const transferRoute = (player: Player, live: FakeCall | undefined, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const legs = body.legs ?? "aleg"
    if (legs !== "aleg" && legs !== "bleg" && legs !== "both") return json(400, { error: "legs must be aleg, bleg or both" })
    if (legs !== "aleg") return json(400, { error: "this fake transfers the A leg only" })
    if (!httpUrl(body.aleg_url)) return json(400, { error: "aleg_url is required when legs is aleg" })
    if (body.aleg_method !== undefined && body.aleg_method !== "GET" && body.aleg_method !== "POST") {
      return json(400, { error: "aleg_method must be GET or POST" })
    }
    if (live === undefined || live.status !== "in-progress") return notFound()
    // What the call ran stops: its script, and its stream, which the carrier closes.
    if (live.fiber !== undefined) yield* Fiber.interrupt(live.fiber)
    if (live.stream !== undefined && live.stream.current.closedBy === undefined) {
      live.stream.current = { ...live.stream.current, closedBy: "carrier" }
      if (live.streamFiber !== undefined) yield* Fiber.interrupt(live.streamFiber)
    }
    live.fiber = yield* player.fork(run(player, live, body.aleg_url as string))
    return json(202, { message: "call transferred" })
  })
