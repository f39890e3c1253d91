/**
 * Twilio as a carrier under test: the adapter against the fake Twilio, for the contract suite
 * (`runContract` of `@agentline/telephony-kit`, run by `test/Contract.test.ts`, and the server's
 * suite). `inboundSeen` and `mediaLeg` serve the carriers of Twilio's dialect (Cloudonix) too.
 */
import type { CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as Twilio from "../Twilio.js"
import * as FakeTwilio from "./FakeTwilio.js"
import * as FakeTwiml from "./FakeTwiml.js"

const account = { sid: "AC00000000000000000000000000contract", token: "contract-auth-token" }

const behaviours: Record<Scenario, FakeTwilio.Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "failed" },
  voicemail: { answer: "machine" },
  invalid: { answer: "invalid" },
  // A minute at the fake's 20 ms a second: tests hang up themselves, conversations need the time.
  talking: { answer: "human", talkSeconds: 3000 }
}

/** An incoming call of a Twilio-dialect fake as the contract sees it: what its TwiML answer did. */
export const inboundSeen = (call: FakeTwilio.FakeCall): FakeInbound => {
  const verbs = FakeTwiml.parse(call.answers[0] ?? "") ?? []
  return {
    providerCallId: call.sid,
    status: call.webhookStatus ?? 0,
    answer: verbs.some((v) => v._tag === "Stream")
      ? "stream"
      : verbs.some((v) => v._tag === "Reject" && v.reason === "busy")
      ? "busy"
      : "refused",
    hangUp: () => call.end("completed")
  }
}

/** The far end of a Twilio Media Stream (µ-law 8 kHz). */
export const mediaLeg = (leg: FakeTwilio.MediaLeg): FakeMediaLeg => ({
  format: leg.format,
  url: leg.url,
  speak: leg.speak,
  press: leg.press,
  received: leg.received,
  heard: leg.played,
  marks: leg.marks,
  clears: leg.clears,
  isOpen: leg.isOpen
})

export const carrier: CarrierUnderTest = {
  provider: "twilio",
  transfers: true,
  start: async () => {
    const fake = await FakeTwilio.start({ accounts: [account], secondMillis: 20 })
    const found = (sid: string) => {
      const call = fake.call(sid)
      if (call === undefined) throw new Error(`the fake has no call ${sid}`)
      return call
    }
    return {
      adapter: Twilio.make({ apiUrl: fake.url }),
      config: ({ machineDetection }) => ({ account_sid: account.sid, auth_token: account.token, amd_enabled: machineDetection }),
      fake: {
        own: (number) => void fake.addNumber(account.sid, number),
        behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
        failNext: (status, count) => fake.failNext(status, count),
        route: (number, url) => {
          const incoming = fake.number(number) ?? fake.addNumber(account.sid, number)
          incoming.voiceUrl = url
        },
        voiceUrl: (number) => fake.number(number)?.voiceUrl ?? null,
        placeInbound: async ({ from, signature, to }) => {
          const call = await fake.placeInbound({
            to,
            from,
            behaviour: { answer: "human", talkSeconds: 1000 },
            ...(signature === "wrong" ? { signingToken: "not-the-auth-token" } : {})
          })
          if (call === undefined) throw new Error(`the fake has no voice webhook for ${to}`)
          return inboundSeen(call)
        },
        media: async (sid) => mediaLeg(await found(sid).mediaConnected),
        ended: (sid) => found(sid).ended,
        resendCallbacks: (sid, order) => found(sid).resend(order),
        forgeCallback: (sid, signature) => found(sid).forge(signature),
        transferredTo: (sid) => found(sid).dialedTo ?? fake.joinedBy(sid)?.to,
        warmTransfer: (sid) => {
          const caller = found(sid)
          const target = fake.joinedBy(sid)
          if (target === undefined) return undefined
          return {
            target: target.to,
            briefed: [...target.said],
            callerHeard: [...(caller.heldInConference ? ["hold"] : []), ...caller.said]
          }
        },
        close: fake.close
      }
    }
  }
}
