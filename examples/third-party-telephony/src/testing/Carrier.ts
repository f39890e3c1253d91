/**
 * Acme as a carrier under test: the adapter against the fake Acme, for the kit's contract suite
 * (`test/Contract.test.ts` runs `runContract(carrier)`). Each knob is a line or two over the fake.
 */
import type { CarrierUnderTest, FakeInbound, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as Acme from "../Acme.js"
import * as FakeAcme from "./FakeAcme.js"

const account = { id: "AC-contract", apiKey: "acme-contract-api-key", webhookSecret: "acme-contract-webhook-secret" }

const behaviours: Record<Scenario, FakeAcme.Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "failed" },
  voicemail: { answer: "machine" },
  invalid: { answer: "invalid" },
  talking: { answer: "human", talkSeconds: 3000 }
}

/** Acme's final statuses in the contract's words. */
const outcomes: Record<string, string> = { "no-answer": "no_answer", machine: "voicemail" }

export const carrier: CarrierUnderTest = {
  provider: "acme",
  // Acme reports machines, but a configuration cannot ask for detection: it is not part of the contract.
  machineDetection: false,
  start: async () => {
    const fake = await FakeAcme.start({ account, secondMillis: 20 })
    const found = (id: string) => {
      const call = fake.call(id)
      if (call === undefined) throw new Error(`the fake has no call ${id}`)
      return call
    }
    return {
      adapter: Acme.make({ apiUrl: fake.url }),
      config: () => ({ account_id: account.id, api_key: account.apiKey, webhook_secret: account.webhookSecret }),
      fake: {
        own: fake.own,
        behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
        failNext: (status, count) => fake.failNext(status, count),
        route: (number, url) => {
          fake.own(number)
          fake.setVoiceUrl(number, url)
        },
        voiceUrl: fake.voiceUrl,
        placeInbound: async ({ from, signature, to }): Promise<FakeInbound> => {
          const { actions, call, status } = await fake.placeInbound({ to, from, ...(signature === "wrong" ? { secret: "not-the-secret" } : {}) })
          const first = actions[0]?.type
          return {
            providerCallId: call.id,
            status,
            answer: first === "stream" ? "stream" : first === "busy" ? "busy" : "refused",
            hangUp: () => call.end("completed")
          }
        },
        media: async (id) => {
          const leg = await found(id).mediaConnected
          return { ...leg, heard: leg.played }
        },
        ended: (id) => found(id).ended.then((status) => outcomes[status] ?? status),
        resendCallbacks: (id, order) => found(id).log.resend(order),
        forgeCallback: (id, signature) => found(id).log.forge(signature),
        close: fake.close
      }
    }
  }
}
