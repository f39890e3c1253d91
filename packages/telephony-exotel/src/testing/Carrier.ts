/**
 * Exotel as a carrier under test: the adapter against the fake Exotel, for the contract suite
 * (`test/Contract.test.ts`, and the server's suite). Exotel reports the answer and the end only, has no
 * machine detection, no API to point a number at a URL, and no busy signal.
 */
import type { CarrierUnderTest, FakeInbound, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as Exotel from "../Exotel.js"
import * as FakeExotel from "./FakeExotel.js"

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

export const carrier: CarrierUnderTest = {
  provider: "exotel",
  // Exotel reports the answer and the end (`StatusCallbackEvents`: answered, terminal), no ringing.
  answeredProgress: ["answered", "ended"],
  machineDetection: false,
  inboundByApi: false,
  busySignal: false,
  // Exotel documents no request that ends a call: a ringing one rings on (its hang-up says so).
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
          fake.route(number, url === null ? null : Exotel.Signature.inboundFlowUrl(config, url))
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
        media: async (sid) => {
          const leg = await found(sid).mediaConnected
          return { ...leg, heard: leg.played }
        },
        // Exotel's word for the end (`no-answer`) as the outcome word the suite compares.
        ended: (sid) => found(sid).ended.then((status) => status.replace("-", "_")),
        resendCallbacks: (sid, order) => found(sid).resend(order),
        forgeCallback: (sid, signature) => found(sid).forge(signature),
        close: fake.close
      }
    }
  }
}

