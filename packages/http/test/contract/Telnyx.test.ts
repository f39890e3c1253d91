/** The contract suite for Telnyx, against the fake Telnyx of `@agentline/telephony-telnyx/testing`. */
import * as Pcm from "@agentline/core/audio/Pcm"
import { Telnyx } from "@agentline/telephony-telnyx"
import * as FakeTelnyx from "@agentline/telephony-telnyx/testing/FakeTelnyx"
import type { CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario } from "./Carrier.js"
import { runContract } from "./Contract.js"

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

/** The adapter asks Telnyx for µ-law at 8 kHz both ways. */
const mulaw = { encoding: "mulaw", sampleRate: 8000 } as const
const pcm = (audio: Uint8Array) => Pcm.decode({ format: mulaw, data: audio }).samples

export const telnyx: CarrierUnderTest = {
  provider: "telnyx",
  callMillis: 200,
  answeredProgress: ["initiated", "answered", "ended"],
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
          // Telnyx ignores the webhook's answer: what the server did is the command it sent meanwhile.
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
        media: async (id): Promise<FakeMediaLeg> => {
          const leg = await found(id).mediaConnected
          return {
            sampleRate: 8000,
            url: leg.url,
            speak: (samples) => leg.speak(Pcm.encode({ sampleRate: 8000, samples }, mulaw).data),
            press: leg.press,
            received: () => pcm(leg.received()),
            heard: () => pcm(leg.played()),
            marks: leg.marks,
            clears: leg.clears,
            isOpen: leg.isOpen
          }
        },
        // Telnyx ends a call with a hang-up cause; the contract speaks of outcomes.
        ended: (id) => found(id).ended.then(Telnyx.Events.unansweredOutcome),
        // The call's status webhooks; `streaming.*` ones are notices about the media stream.
        resendCallbacks: (id, order) => found(id).resend(order, (w) => !JSON.parse(w.body).data.event_type.startsWith("streaming.")),
        forgeCallback: (id, signature) => found(id).forge(signature),
        close: fake.close
      }
    }
  }
}

runContract(telnyx)
