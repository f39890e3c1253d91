/** The contract suite for Exotel, against the fake Exotel of `@agentline/telephony-exotel/testing`. */
import { Exotel, ExotelWebhookAuth } from "@agentline/telephony-exotel"
import * as FakeExotel from "@agentline/telephony-exotel/testing/FakeExotel"
import type { CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario } from "./Carrier.js"
import { runContract } from "./Contract.js"

const account = { sid: "agentlinecontract1", apiKey: "contract-exotel-api-key", apiToken: "contract-exotel-api-token" }
const config = { account_sid: account.sid, api_key: account.apiKey, api_token: account.apiToken }

const behaviours: Record<Scenario, FakeExotel.Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "failed" },
  // No machine detection: a machine is just someone who answers.
  voicemail: { answer: "human" },
  invalid: { answer: "invalid" },
  talking: { answer: "human", talkSeconds: 3000 }
}

/** 16-bit little-endian PCM, as Exotel streams it, and back. */
const pcm = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Int16Array.from({ length: Math.floor(bytes.length / 2) }, (_, i) => view.getInt16(i * 2, true))
}
const bytesOf = (samples: Int16Array) => {
  const out = new Uint8Array(samples.length * 2)
  const view = new DataView(out.buffer)
  samples.forEach((v, i) => view.setInt16(i * 2, v, true))
  return out
}

export const exotel: CarrierUnderTest = {
  provider: "exotel",
  callMillis: 200,
  // Exotel reports the answer and the end (`StatusCallbackEvents`: answered, terminal), no ringing.
  answeredProgress: ["answered", "ended"],
  machineDetection: false,
  inboundByApi: false,
  busySignal: false,
  endsRingingCalls: false,
  start: async () => {
    const fake = await FakeExotel.start({ accounts: [account], secondMillis: 20 })
    const found = (sid: string) => {
      const call = fake.call(sid)
      if (call === undefined) throw new Error(`the fake has no call ${sid}`)
      return call
    }
    return {
      adapter: Exotel.make({ apiUrl: fake.url }),
      config: () => config,
      fake: {
        own: (number) => fake.addExoPhone(account.sid, number),
        behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
        failNext: (status, count) => fake.failNext(status, count),
        // What the operator pastes into the flow's Voicebot applet: the URL provider_sync names, with its credentials.
        route: (number, url) => {
          fake.addExoPhone(account.sid, number)
          fake.route(number, url === null ? null : ExotelWebhookAuth.inboundFlowUrl(config, url))
        },
        voiceUrl: fake.voiceUrl,
        placeInbound: async ({ from, signature, to }): Promise<FakeInbound> => {
          const call = await fake.placeInbound({ to, from, ...(signature === "wrong" ? { password: "not-the-token" } : {}) })
          if (call === undefined) throw new Error(`no flow hears calls to ${to}`)
          let url: unknown
          try {
            url = JSON.parse(call.webhookBody ?? "").url
          } catch {
            url = undefined
          }
          return {
            providerCallId: call.sid,
            status: call.webhookStatus ?? 0,
            // Exotel has no busy signal: a call the server does not take gets no stream URL.
            answer: typeof url === "string" ? "stream" : "refused",
            hangUp: () => call.end("completed")
          }
        },
        media: async (sid): Promise<FakeMediaLeg> => {
          const leg = await found(sid).mediaConnected
          return {
            sampleRate: leg.sampleRate,
            url: leg.url,
            speak: (samples) => leg.speak(bytesOf(samples)),
            press: leg.press,
            received: () => pcm(leg.received()),
            heard: () => pcm(leg.played()),
            marks: leg.marks,
            clears: leg.clears,
            isOpen: leg.isOpen
          }
        },
        ended: (sid) => found(sid).ended,
        resendCallbacks: (sid, order) => found(sid).resend(order),
        forgeCallback: (sid, signature) => found(sid).forge(signature),
        close: fake.close
      }
    }
  }
}

runContract(exotel)
