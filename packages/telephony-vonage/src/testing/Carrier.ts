/**
 * Vonage as a carrier under test: the adapter against the fake Vonage, for the contract suite
 * (`test/Contract.test.ts`, and the server's suite). The adapter asks Vonage for 16-bit linear PCM at
 * 16 kHz: the one wide-band carrier of the suite.
 */
import type { CarrierUnderTest, FakeInbound, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as Vonage from "../Vonage.js"
import * as FakeVonage from "./FakeVonage.js"

const account = { apiKey: "vonagecontract01", apiSecret: "vonage-contract-api-secret", signatureSecret: "vonage-contract-signature-secret" }

const behaviours: Record<Scenario, FakeVonage.Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "failed" },
  voicemail: { answer: "machine" },
  invalid: { answer: "invalid" },
  talking: { answer: "human", talkSeconds: 3000 }
}

/** What the server's NCCO did with an incoming call. Vonage has no busy signal: a busy line is said. */
const inboundSeen = (call: FakeVonage.FakeVonageCall): FakeInbound => {
  let ncco: ReadonlyArray<any> = []
  try {
    ncco = JSON.parse(call.nccos[0] ?? "[]")
  } catch {
    ncco = []
  }
  const said = ncco.filter((a) => a?.action === "talk").map((a) => String(a.text)).join(" ")
  return {
    providerCallId: call.uuid,
    status: call.answerStatus ?? 0,
    answer: ncco.some((a) => a?.action === "connect" && a.endpoint?.[0]?.type === "websocket")
      ? "stream"
      : /\bbusy\b/i.test(said)
      ? "busy"
      : "refused",
    hangUp: () => call.end("completed")
  }
}

export const carrier: CarrierUnderTest = {
  provider: "vonage",
  transfers: true,
  start: async () => {
    const fake = await FakeVonage.start({ account, secondMillis: 20 })
    const { application, privateKey } = fake.addApplication("agentline-contract")
    const found = (uuid: string) => {
      const call = fake.call(uuid)
      if (call === undefined) throw new Error(`the fake has no call ${uuid}`)
      return call
    }
    return {
      adapter: Vonage.make({ apiUrl: fake.url }),
      config: ({ machineDetection }) => ({
        api_key: account.apiKey,
        api_secret: account.apiSecret,
        application_id: application.id,
        private_key: privateKey,
        signature_secret: account.signatureSecret,
        amd_enabled: machineDetection
      }),
      fake: {
        own: (number) => void fake.own(number),
        behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
        // Call lookups are left alone: the server settles finished streams with them in the background.
        failNext: (status, count) => fake.failNext(status, count, (method, path) => !(method === "GET" && path.startsWith("/v1/calls/"))),
        // As if done in Vonage's dashboard: the number linked to the application, whose answer URL is `url`.
        route: (number, url) => {
          const owned = fake.own(number)
          owned.appId = url === null ? null : application.id
          if (url !== null) application.answerUrl = url
        },
        voiceUrl: fake.voiceUrl,
        placeInbound: async ({ from, signature, to }) => {
          const call = await fake.placeInbound({
            to,
            from,
            behaviour: { answer: "human", talkSeconds: 1000 },
            ...(signature === "wrong" ? { signatureSecret: "not-the-signature-secret" } : {})
          })
          if (call === undefined) throw new Error(`the fake has no answer URL for ${to}`)
          return inboundSeen(call)
        },
        media: async (uuid) => {
          const leg = await found(uuid).mediaConnected
          return { ...leg, heard: leg.played }
        },
        // Vonage's final statuses in the contract's words.
        ended: (uuid) =>
          found(uuid).ended.then((status) =>
            ({ unanswered: "no_answer", timeout: "no_answer", cancelled: "canceled", rejected: "busy" } as Record<string, string>)[status] ?? status
          ),
        resendCallbacks: (uuid, order) => found(uuid).resend(order),
        forgeCallback: (uuid, signature) => found(uuid).forge(signature),
        transferredTo: (uuid) => found(uuid).dialedTo,
        close: fake.close
      }
    }
  }
}
