/**
 * Cloudonix as a carrier under test: the adapter against the fake Cloudonix, for the contract suite
 * (`test/Contract.test.ts`, and the server's suite). Its media and answers are Twilio's dialect, so the
 * fake's inbound calls and media legs read as Twilio's do.
 */
import type { CarrierUnderTest, FakeMediaLeg, Scenario, Started } from "@agentline/telephony-kit/testing/Carrier"
import type { Behaviour } from "@agentline/telephony-twilio/testing/FakeCall"
import { inboundSeen, mediaLeg } from "@agentline/telephony-twilio/testing/Carrier"
import * as Cloudonix from "../Cloudonix.js"
import * as FakeCloudonix from "./FakeCloudonix.js"

const domain = { name: "contract.cloudonix.net", apiKey: "XIcontract0123456789abcdef" }
const APPLICATION = "agentline"

const behaviours: Record<Scenario, Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "failed" },
  // No machine detection: a machine is just someone who answers.
  voicemail: { answer: "human" },
  invalid: { answer: "invalid" },
  talking: { answer: "human", talkSeconds: 3000 }
}

/** Starts the fake and wires the adapter to it; `fake` is the fake itself, for Cloudonix's own tests. */
export const startCloudonix = async (): Promise<{ readonly started: Started; readonly fake: FakeCloudonix.FakeCloudonix }> => {
  const fake = await FakeCloudonix.start({ domains: [domain], secondMillis: 20 })
  fake.application(domain.name, APPLICATION)
  let consoleApps = 0
  const found = (token: string) => {
    const call = fake.call(token)
    if (call === undefined) throw new Error(`the fake has no session ${token}`)
    return call
  }
  const started: Started = {
    adapter: Cloudonix.make({ apiUrl: fake.url }),
    config: () => ({ bearer_token: domain.apiKey, domain_id: "contract", application_name: APPLICATION }),
    fake: {
      // Cloudonix takes any caller id; numbers for incoming calls are attached when bound.
      own: () => undefined,
      behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
      failNext: (status, count) => fake.failNext(status, count),
      route: (number, url) => {
        // As if set in the cockpit: the number on an application of its own, pointed at `url`.
        const name = `console-${++consoleApps}`
        fake.application(domain.name, name, url)
        fake.attach(domain.name, number, name)
      },
      voiceUrl: fake.voiceUrl,
      placeInbound: async ({ from, signature, to }) => {
        const call = await fake.placeInbound({
          to,
          from,
          behaviour: { answer: "human", talkSeconds: 1000 },
          ...(signature === "wrong" ? { apiKey: "not-the-api-key" } : {})
        })
        if (call === undefined) throw new Error(`the fake has no application URL for ${to}`)
        return inboundSeen(call)
      },
      media: async (token): Promise<FakeMediaLeg> => {
        return mediaLeg(await found(token).mediaConnected)
      },
      ended: (token) => found(token).ended,
      resendCallbacks: (token, order) => found(token).resend(order),
      forgeCallback: (token, signature) => found(token).forge(signature),
      transferredTo: (token) => found(token).dialedTo,
      close: fake.close
    }
  }
  return { started, fake }
}

export const carrier: CarrierUnderTest = {
  provider: "cloudonix",
  machineDetection: false,
  transfers: true,
  start: async () => (await startCloudonix()).started
}
