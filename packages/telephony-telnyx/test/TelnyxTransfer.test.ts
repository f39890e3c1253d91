/**
 * Telnyx transfers, the pure parts: the transfer command's body and how the transferred leg's webhooks
 * read as a result. (The contract suite, `Contract.test.ts`, runs the transfers against the fake.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Telnyx } from "../src/index.js"

const { Callbacks, ClientState, Transfer } = Telnyx
const CALLER = "v3:caller-leg"
const T0 = Date.parse("2026-01-01T10:00:00.000Z")

const webhook = (event_type: string, payload: Record<string, unknown>) =>
  Either.getOrThrow(Callbacks.decodeWebhook(new TextEncoder().encode(JSON.stringify({
    data: { record_type: "event", event_type, id: "e-1", occurred_at: new Date(T0).toISOString(), payload: { call_control_id: "v3:new-leg", ...payload } },
    meta: { attempt: 1, delivered_to: "https://calls.example.com/api/v1/telephony/transfer-result/t1" }
  }))))

const ours = { client_state: ClientState.encode({ [Transfer.TRANSFER_KEY]: CALLER }) }

describe("telnyx transfer command", () => {
  it("dials the target with the caller id, the result URL for the new leg's webhooks and the caller's leg in its client state", () => {
    const body = Transfer.transferBody({
      providerCallId: CALLER,
      target: "sip:desk@pbx.example.com",
      from: "+14155550100",
      timeoutSeconds: 30,
      resultUrl: "https://calls.example.com/api/v1/telephony/transfer-result/t1"
    })
    expect(body).toEqual({
      to: "sip:desk@pbx.example.com",
      from: "+14155550100",
      timeout_secs: 30,
      webhook_url: "https://calls.example.com/api/v1/telephony/transfer-result/t1",
      webhook_url_method: "POST",
      target_leg_client_state: expect.any(String)
    })
    expect(ClientState.decode(body.target_leg_client_state)).toEqual({ [Transfer.TRANSFER_KEY]: CALLER })
    expect("from" in Transfer.transferBody({ providerCallId: CALLER, target: "+14155550111", from: undefined, timeoutSeconds: 30, resultUrl: "http://x" })).toBe(false)
  })

  it("keeps the ring time within what Telnyx takes (5 to 600 seconds)", () => {
    expect([1, 5, 29.6, 600, 900].map(Transfer.ringSeconds)).toEqual([5, 5, 30, 600, 600])
  })
})

describe("telnyx transferred leg's webhooks as the transfer's result", () => {
  it("answered on call.answered; a hang-up by its cause; progress is no result", () => {
    const matrix: ReadonlyArray<readonly [string, Record<string, unknown>, string | undefined]> = [
      ["call.initiated", { state: "bridging" }, undefined],
      ["call.bridged", { state: "bridged" }, undefined],
      ["call.answered", {}, "answered"],
      ["call.hangup", { hangup_cause: "user_busy", sip_hangup_cause: "486" }, "busy"],
      ["call.hangup", { hangup_cause: "timeout", sip_hangup_cause: "487" }, "no_answer"],
      ["call.hangup", { hangup_cause: "no_answer" }, "no_answer"],
      ["call.hangup", { hangup_cause: "not_found", sip_hangup_cause: "404" }, "failed"],
      ["call.hangup", { hangup_cause: "call_rejected" }, "failed"],
      ["call.hangup", { hangup_cause: "originator_cancel" }, "failed"],
      ["call.hangup", { hangup_cause: "normal_clearing" }, "answered"]
    ]
    for (const [type, payload, outcome] of matrix) {
      const { caller, result } = Transfer.resultOf(webhook(type, { ...ours, ...payload }), 0)
      expect([type, payload.hangup_cause, result?.outcome]).toEqual([type, payload.hangup_cause, outcome])
      expect(caller).toBe(CALLER)
      if (result !== undefined) expect(result.at).toBe(T0)
    }
    expect(Transfer.resultOf(webhook("call.hangup", { ...ours, hangup_cause: "user_busy", sip_hangup_cause: "486" }), 0).result?.cause)
      .toBe("call.hangup: user_busy (SIP 486)")
  })

  it("a webhook that is not about a transferred leg (no or foreign client state) is no result", () => {
    expect(Transfer.resultOf(webhook("call.hangup", { hangup_cause: "user_busy" }), 0)).toEqual({ result: undefined, caller: undefined })
    const foreign = ClientState.encode({ attempt_id: "7" })
    expect(Transfer.resultOf(webhook("call.answered", { client_state: foreign }), 0).result).toBeUndefined()
  })
})
