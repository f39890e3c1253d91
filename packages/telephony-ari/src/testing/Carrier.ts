/**
 * Asterisk ARI as a carrier under test, for the contract suite (`test/Contract.test.ts`, and the server's
 * suite): the adapter against the fake Asterisk (REST, the events WebSocket, chan_websocket media
 * channels that dial the application's media route as websocket_client.conf's `media` connection).
 *
 * ARI has no HTTP callbacks, so two knobs take their most faithful equivalent: `resendCallbacks`
 * sends the call's events again over the events WebSocket (those that report progress: ringing,
 * StasisStart, ChannelDestroyed), and `forgeCallback` posts an event to the application's callback
 * route with a wrong or no ARI password, which it must refuse (ARI never posts callbacks).
 */
import type { CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as Ari from "../Ari.js"
import * as FakeAri from "./FakeAri.js"

const user = { name: "agentline-contract", password: "ari-contract-password-0123" }
const WS_CLIENT = "agentline_media"

const behaviours: Record<Scenario, FakeAri.Behaviour> = {
  completed: { answer: "human" },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  failed: { answer: "failed" },
  // ARI has no answering machine detection: a machine is someone who answers.
  voicemail: { answer: "human" },
  invalid: { answer: "invalid" },
  talking: { answer: "human", talkSeconds: 3000 }
}

const mulaw = { encoding: "mulaw", sampleRate: 8000 } as const

/** The events that report a call's progress (what the adapter turns into call events). */
const progress = (event: Record<string, unknown>) =>
  event.type === "StasisStart" || event.type === "ChannelDestroyed" ||
  (event.type === "ChannelStateChange" && (event.channel as any)?.state === "Ringing")

export const carrier: CarrierUnderTest = {
  provider: "ari",
  machineDetection: false,
  numbersRoutedByDialplan: true,
  transfers: true,
  // chan_websocket dials a URI configured once on the Asterisk box: the application's address is needed up front.
  start: async ({ publicUrl }) => {
    const fake = await FakeAri.start({
      user: user.name,
      password: user.password,
      secondMillis: 20,
      websocketClients: { [WS_CLIENT]: `${publicUrl.replace(/^http/, "ws")}/api/v1/telephony/media/ari` }
    })
    const found = (id: string) => {
      const channel = fake.channel(id)
      if (channel === undefined) throw new Error(`the fake has no channel ${id}`)
      return channel
    }
    const config = { ari_endpoint: fake.url, app_name: user.name, app_password: user.password, ws_client_name: WS_CLIENT }
    return {
      adapter: Ari.make({ apiUrl: fake.url }),
      config: () => config,
      fake: {
        // Asterisk dials with any caller id the trunk accepts.
        own: () => undefined,
        behave: (number, scenario) => fake.behave(number, behaviours[scenario]),
        // Not hang-ups and media teardown of calls that just ended.
        failNext: (status, count) => fake.failNext(status, count, /^\/ari\/(channels|applications)$|^\/ari\/applications\//),
        // The dialplan sends every number to Stasis(app): there is no per-number webhook to point.
        route: () => undefined,
        voiceUrl: () => null,
        placeInbound: async ({ from, signature, to }): Promise<FakeInbound> => {
          if (signature === "wrong") {
            // A forged announcement: the inbound route, posted with a MAC under another key.
            const id = `forged-${Date.now()}`
            const event = { type: "StasisStart", args: [], channel: { id, state: "Ring", caller: { name: "", number: from }, dialplan: { exten: to } } }
            const forged = Ari.Inbound.request(config, event, "not-the-password")
            const response = await fetch(`${publicUrl}/api/v1/telephony/inbound/ari`, {
              method: "POST",
              headers: forged.headers as Record<string, string>,
              body: Buffer.from(forged.rawBody)
            })
            return { providerCallId: id, status: response.status, answer: "refused", hangUp: () => undefined }
          }
          const channel = fake.placeInbound({ app: user.name, to, from })
          const fate = await Promise.race([
            channel.fate,
            new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000))
          ])
          if (fate === undefined) throw new Error(`nothing answered or rejected the incoming call ${channel.id}`)
          return {
            providerCallId: channel.id,
            // Asterisk has no answer document: the server answered by commands on the channel.
            status: 200,
            answer: fate._tag === "Answered" ? "stream" : fate._tag === "HungUp" && fate.reason === "busy" ? "busy" : "refused",
            hangUp: () => channel.hangUp()
          }
        },
        media: async (id): Promise<FakeMediaLeg> => {
          const leg = await found(id).mediaConnected
          return {
            format: mulaw,
            url: leg.url,
            speak: leg.speak,
            press: leg.press,
            received: leg.received,
            heard: leg.played,
            marks: leg.marks,
            clears: leg.flushes,
            isOpen: leg.isOpen
          }
        },
        ended: (id) => found(id).ended,
        resendCallbacks: (id, order) => found(id).resend(order, progress),
        forgeCallback: async (id, signature) => {
          const channel = found(id)
          const attempt = /attempt_id=(\d+)/.exec(channel.args.join(","))?.[1] ?? "0"
          const event = channel.events.find((e) => e.type === "ChannelDestroyed") ?? channel.events.at(-1)
          const password = signature === "wrong" ? "not-the-password" : undefined
          const response = await fetch(`${publicUrl}/api/v1/telephony/callbacks/ari/${attempt}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              ...(password !== undefined ? { authorization: `Basic ${Buffer.from(`${user.name}:${password}`).toString("base64")}` } : {})
            },
            body: JSON.stringify(event)
          })
          return response.status
        },
        // The channel originated for the call (ARI's `originator`): where the transfer dialed.
        transferredTo: (id) => {
          const dialed = fake.originatedFor(id).at(-1)
          return dialed === undefined ? undefined : dialed.number
        },
        close: fake.close
      }
    }
  }
}
