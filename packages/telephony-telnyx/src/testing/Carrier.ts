/**
 * Telnyx as a carrier under test: the adapter against the fake Telnyx, for the contract suite
 * (`test/Contract.test.ts`, and the server's suite). Call Control reports no ringing, and an inbound
 * call is answered by a command on it, which is what the fake reports.
 */
import type { CarrierUnderTest, FakeInbound, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as Callbacks from "../Callbacks.js"
import * as Telnyx from "../Telnyx.js"
import * as FakeTelnyx from "./FakeTelnyx.js"

const apiKey = "KEYcontract0123456789"

const behaviours: Record<Scenario, FakeTelnyx.Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "unreachable" },
  // The machine talks long enough (200 ms scaled) for the detection verdict (10 ms after the answer) to
  // come first on a busy machine too.
  voicemail: { answer: "machine", talkSeconds: 10 },
  invalid: { answer: "invalid" },
  talking: { answer: "human", talkSeconds: 1000 }
}

export const carrier: CarrierUnderTest = {
  provider: "telnyx",
  answeredProgress: ["initiated", "answered", "ended"],
  transfers: true,
  start: async () => {
    const fake = await FakeTelnyx.start({ apiKey, secondMillis: 20 })
    const application = fake.addApplication("agentline-contract")
    const found = (id: string) => {
      const call = fake.call(id)
      if (call === undefined) throw new Error(`the fake has no call ${id}`)
      return call
    }
    return {
      adapter: Telnyx.make({ apiUrl: fake.url }),
      config: ({ machineDetection }) => ({
        api_key: apiKey,
        connection_id: application.id,
        webhook_public_key: fake.publicKey,
        amd_enabled: machineDetection
      }),
      fake: {
        own: (number) => void fake.addNumber(number, application.id),
        behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
        // Not commands on calls: the hang-ups of calls that just ended (media streams closing) would take them.
        failNext: (status, count) => fake.failNext(status, count, /^(?!\/v2\/calls\/)/),
        // A Telnyx number reaches a webhook through the Call Control Application it is assigned to.
        route: (number, url) => {
          const owned = fake.number(number) ?? fake.addNumber(number, null)
          owned.connectionId = url === null ? null : application.id
          if (url !== null) application.webhookEventUrl = url
        },
        voiceUrl: (number) => {
          const owned = fake.number(number)
          return owned?.connectionId == null ? null : fake.application(owned.connectionId)?.webhookEventUrl ?? null
        },
        placeInbound: async ({ from, signature, to }): Promise<FakeInbound> => {
          const call = await fake.placeInbound({ to, from, behaviour: { answer: "human", talkSeconds: 1000 }, signature: signature ?? "good" })
          if (call === undefined) throw new Error(`no webhook hears calls to ${to}`)
          // Telnyx ignores the webhook's answer: what the application did is the command it sent meanwhile.
          const command = call.commands[0]
          return {
            providerCallId: call.callControlId,
            status: call.webhooks[0]?.status ?? 0,
            answer: command?.action === "answer" && command.body.stream_url !== undefined
              ? "stream"
              : command?.action === "reject" && command.body.cause === "USER_BUSY"
              ? "busy"
              : "refused",
            hangUp: () => call.end("normal_clearing", "caller", "200")
          }
        },
        media: async (id) => {
          const leg = await found(id).mediaConnected
          return { ...leg, heard: leg.played }
        },
        // Telnyx ends a call with a hang-up cause; the contract speaks of outcomes.
        ended: (id) => found(id).ended.then(Callbacks.unansweredOutcome),
        // The call's status webhooks; `streaming.*` ones are notices about the media stream.
        resendCallbacks: (id, order) => found(id).resend(order, (w) => !JSON.parse(w.body).data.event_type.startsWith("streaming.")),
        forgeCallback: (id, signature) => found(id).forge(signature),
        transferredTo: (id) => found(id).transferredTo,
        close: fake.close
      }
    }
  }
}
