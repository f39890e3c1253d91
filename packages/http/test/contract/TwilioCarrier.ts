/** Twilio as a carrier under test: the adapter against the fake Twilio of `@agentline/telephony-twilio/testing`. */
import * as Pcm from "@agentline/core/audio/Pcm"
import { Twilio } from "@agentline/telephony-twilio"
import * as FakeTwilio from "@agentline/telephony-twilio/testing/FakeTwilio"
import * as FakeTwiml from "@agentline/telephony-twilio/testing/FakeTwiml"
import type { CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario } from "./Carrier.js"

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

const mulaw = { encoding: "mulaw", sampleRate: 8000 } as const
const pcm = (audio: Uint8Array) => Pcm.decode({ format: mulaw, data: audio }).samples

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

/** The far end of a Twilio Media Stream (µ-law 8 kHz) as PCM. */
export const mediaLeg = (leg: FakeTwilio.MediaLeg): FakeMediaLeg => ({
  sampleRate: 8000,
  url: leg.url,
  speak: (samples) => leg.speak(Pcm.encode({ sampleRate: 8000, samples }, mulaw).data),
  press: leg.press,
  received: () => pcm(leg.received()),
  heard: () => pcm(leg.played()),
  marks: leg.marks,
  clears: leg.clears,
  isOpen: leg.isOpen
})

export const twilio: CarrierUnderTest = {
  provider: "twilio",
  callMillis: 200,
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
        media: async (sid): Promise<FakeMediaLeg> => {
          return mediaLeg(await found(sid).mediaConnected)
        },
        ended: (sid) => found(sid).ended,
        resendCallbacks: (sid, order) => found(sid).resend(order),
        forgeCallback: (sid, signature) => found(sid).forge(signature),
        close: fake.close
      }
    }
  }
}

