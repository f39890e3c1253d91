/**
 * One Cloudonix session of the fake Cloudonix: a call played by Twilio's engine (`FakeCall`: CXML is
 * TwiML), named by its session token, speaking Cloudonix's requests — session notifications (the JSON
 * session object in Cloudonix's states) to the call's `callback`, voice application requests (JSON, the
 * session as `SessionData`) to application URLs, each carrying the domain's API key in `x-cx-apikey`.
 */
import type * as FakeCallbacks from "@agentline/telephony-kit/testing/FakeCallbacks"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import { type Callback, type CallStatus, FakeCall } from "@agentline/telephony-twilio/testing/FakeCall"
import * as Crypto from "node:crypto"

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

  /**
   * A voice application request's parameters (Cloudonix's names; `CallSid` is the session token). A
   * dial's result is reported in `CallStatus` ("when handling the result of a Dial verb, this will be set
   * to the status of the dial"), not in Twilio's `Dial*` parameters.
   */
  override params(extra: Record<string, string | undefined> = {}): Array<readonly [string, string]> {
    const { DialCallDuration: _duration, DialCallSid: _sid, DialCallStatus: dialStatus, ...rest } = extra
    const given = dialStatus !== undefined ? { ...rest, CallStatus: dialStatus } : extra
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
      ...given
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

  private send(url: string, body: unknown, headers: Record<string, string>): Promise<FakeHttp.Answered> {
    return FakeHttp.postJson(url, JSON.stringify(body), headers)
  }

  /** A voice application request, as Cloudonix sends it: JSON, with the session as `SessionData`. */
  override request(url: string, params: ReadonlyArray<readonly [string, string]>, token = this.account.token): Promise<FakeHttp.Answered> {
    return this.send(url, this.applicationRequest(params), this.authHeaders(url, params, token))
  }

  /** A session notification (what the engine's status callbacks are): JSON, with the domain's key, another key, or none. */
  protected override async deliver(callback: Callback, signing: FakeCallbacks.Signing): Promise<number> {
    const headers = signing === "missing" ? {} : this.authHeaders(callback.url, callback.params, signing === "wrong" ? "not-the-api-key" : this.account.token)
    return (await this.send(callback.url, this.notification(callback.params), headers)).status
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
