/**
 * The simulator as a carrier under test, for the kit's contract (`test/Contract.test.ts`). The
 * simulator is its own carrier: there is no API to fake. What a fake would do is done around it —
 *
 * - how a number behaves is a rule of the configuration the next call is placed with (`behave` records
 *   it, `config` writes the rules and the timings of the last scenario asked for: a person talking for
 *   a minute, a phone ringing two seconds before it gives up);
 * - its in-process events are watched (the adapter's `place` is wrapped) to know when a call ended and
 *   to post them again as the simulator's HTTP callbacks, signed with the configuration's secret (or a
 *   wrong one, or none);
 * - the far end of an answered call's media stream is a leg speaking the simulator's stream protocol
 *   (`Media.ts`), on the kit's `FakeMediaLeg`;
 * - incoming calls are the simulator's JSON voice webhook, posted to the application's inbound route.
 *
 * The simulator dials any number and has no API to fail: `refusesNumbers` and `transientFailures` are
 * not part of its contract; numbers need no webhook (`numbersRoutedByDialplan`) and it gives no busy
 * signal.
 */
import type { AudioFormat } from "@agentline/telephony-kit/AudioFormat"
import type { CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario } from "@agentline/telephony-kit/testing/Carrier"
import * as FakeHttp from "@agentline/telephony-kit/testing/FakeHttp"
import * as FakeJson from "@agentline/telephony-kit/testing/FakeJson"
import * as FakeLeg from "@agentline/telephony-kit/testing/FakeMediaLeg"
import * as FakeTimeline from "@agentline/telephony-kit/testing/FakeTimeline"
import type { CallEvent, CallInstruction } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect } from "effect"
import * as Crypto from "node:crypto"
import { sign } from "../Callbacks.js"
import * as Simulator from "../Simulator.js"

const SECRET = "simulator-contract-secret"
const ACCOUNT = "contract-simulator"
/** The simulated line: 16 kHz linear PCM, as its callee speaks. */
const FORMAT: AudioFormat = { encoding: "l16le", sampleRate: 16000 }

const outcomes: Record<Exclude<Scenario, "invalid">, string> = {
  completed: "completed",
  busy: "busy",
  no_answer: "no_answer",
  failed: "failed",
  voicemail: "voicemail",
  talking: "completed"
}

/** Ring and talk seconds of a call of `scenario`. */
const timings = (scenario: Scenario | undefined) => ({
  ring_seconds: scenario === "no_answer" ? 2 : 0.05,
  talk_seconds: scenario === "talking" ? 60 : 0.2
})

/** The far end of a simulated call's media stream, in the simulator's protocol. */
const connect = (url: string, callId: string, parameters: Readonly<Record<string, string>>) =>
  FakeLeg.connect({
    url,
    format: FORMAT,
    frameMillis: 1,
    protocol: {
      text: (text, socket) => {
        const message = FakeJson.parse(text)
        switch (FakeJson.text(message, "event")) {
          case "mark":
            return socket.playout.mark(FakeJson.text(message, "name") ?? "")
          case "clear":
            socket.playout.clear()
            return
          case "stop":
            return socket.close(1000)
        }
      },
      reached: (name, socket) => {
        socket.reportMark(name)
        socket.sendJson({ event: "mark", name })
      },
      opened: (socket) => {
        socket.sendJson({ event: "start", stream_id: Crypto.randomUUID(), call_id: callId, encoding: FORMAT.encoding, sample_rate: FORMAT.sampleRate, parameters })
        return {
          speak: (audio: Uint8Array) => {
            for (const frame of FakeLeg.pieces(audio, 640)) socket.sendBinary(frame)
          },
          press: (digit: string) => socket.sendJson({ event: "dtmf", digit }),
          hangUp: () => {
            socket.sendJson({ event: "stop" })
            socket.close(1000)
          }
        }
      }
    }
  })

type Leg = Awaited<ReturnType<typeof connect>>

const asLeg = (leg: Leg): FakeMediaLeg => ({ ...leg, heard: leg.played })

/** What the carrier saw of a call: its events, where its callbacks go, its media leg once answered. */
interface Seen {
  readonly events: Array<CallEvent>
  readonly callbackUrl: string
  readonly ended: FakeTimeline.Latch<string>
  readonly media: FakeTimeline.Latch<Leg>
}

export const carrier: CarrierUnderTest = {
  provider: "simulator",
  transfers: true,
  machineDetection: false,
  refusesNumbers: false,
  transientFailures: false,
  numbersRoutedByDialplan: true,
  busySignal: false,
  start: async ({ publicUrl }) => {
    const behaviours = new Map<string, Scenario>()
    let last: Scenario | undefined
    const seen = new Map<string, Seen>()
    const calls = new Set<() => Promise<void>>()
    const transferred = new Map<string, string>()
    const found = (id: string) => {
      const call = seen.get(id)
      if (call === undefined) throw new Error(`the simulator placed no call ${id}`)
      return call
    }
    /** A callback as the simulator's HTTP callbacks are: JSON, signed over the full URL and the body. */
    const post = (url: string, event: CallEvent, signing: "good" | "wrong" | "missing") => {
      const body = JSON.stringify({
        call_id: event.providerCallId,
        event: event.type,
        ...(event.type === "ended" ? { outcome: event.outcome, duration: event.durationSeconds } : {})
      })
      const secret = signing === "wrong" ? "not-the-secret" : SECRET
      const headers = signing === "missing" ? {} : { "x-simulator-signature": sign(secret, url, new TextEncoder().encode(body)) }
      return FakeHttp.postJson(url, body, headers).then((answered) => answered.status)
    }

    const adapter = Effect.map(Simulator.make(), (simulator) => ({
      ...simulator,
      calls: {
        ...simulator.calls,
        transfer: (input: Parameters<typeof simulator.calls.transfer>[0]) =>
          Effect.tap(simulator.calls.transfer(input), () => Effect.sync(() => void transferred.set(input.providerCallId, input.target))),
        place: (input: Parameters<typeof simulator.calls.place>[0]) =>
          Effect.suspend(() => {
            let callId: string | undefined
            const early: Array<CallEvent> = []
            const record = (event: CallEvent) =>
              Effect.sync(() => {
                const call = seen.get(event.providerCallId)
                if (call === undefined) return void early.push(event)
                call.events.push(event)
                if (event.type === "answered" && input.whenAnswered._tag === "ConnectMediaStream") {
                  const stream: Extract<CallInstruction, { _tag: "ConnectMediaStream" }> = input.whenAnswered
                  void connect(stream.url, event.providerCallId, stream.parameters).then((leg) => {
                    call.media.resolve(leg)
                    calls.add(async () => leg.hangUp())
                  }, () => undefined)
                }
                if (event.type === "ended") call.ended.resolve(event.outcome)
              })
            return Effect.tap(
              simulator.calls.place({ ...input, onEvent: (event, options) => Effect.zipRight(record(event), input.onEvent(event, options)) }),
              ({ providerCallId }) =>
                Effect.sync(() => {
                  callId = providerCallId
                  seen.set(callId, { events: [], callbackUrl: input.callbackUrl, ended: FakeTimeline.latch(), media: FakeTimeline.latch() })
                }).pipe(Effect.zipRight(Effect.forEach(early.splice(0), record, { discard: true })))
            )
          })
      }
    }))

    return {
      adapter,
      config: () => ({
        account_id: ACCOUNT,
        webhook_secret: SECRET,
        ...timings(last),
        rules: [...behaviours].map(([pattern, scenario]) => ({
          match: "exact",
          pattern,
          outcomes: [scenario === "invalid" ? "failed" : outcomes[scenario]]
        }))
      }),
      fake: {
        own: () => undefined,
        behave: (number, scenario) => {
          behaviours.set(number, scenario)
          last = scenario
        },
        failNext: () => undefined,
        route: () => undefined,
        voiceUrl: () => null,
        placeInbound: async ({ from, signature, to }): Promise<FakeInbound> => {
          const url = `${publicUrl}/api/v1/telephony/inbound/simulator`
          const callId = `sim-inbound-${Crypto.randomUUID()}`
          const body = JSON.stringify({ account_id: ACCOUNT, call_id: callId, from, to })
          const secret = signature === "wrong" ? "not-the-secret" : SECRET
          const answered = await FakeHttp.postJson(url, body, { "x-simulator-signature": sign(secret, url, new TextEncoder().encode(body)) })
          const document = FakeJson.parse(answered.body)
          const streamUrl = FakeJson.text(document, "url")
          const media = FakeTimeline.latch<Leg>()
          seen.set(callId, { events: [], callbackUrl: "", ended: FakeTimeline.latch(), media })
          if (FakeJson.text(document, "action") === "connect" && streamUrl !== undefined) {
            const parameters: Record<string, string> = {}
            const given = FakeJson.at(document, "parameters")
            if (FakeJson.isObject(given)) for (const [k, v] of Object.entries(given)) if (typeof v === "string") parameters[k] = v
            void connect(streamUrl, callId, parameters).then((leg) => media.resolve(leg), () => undefined)
          }
          return {
            providerCallId: callId,
            status: answered.status,
            answer: FakeJson.text(document, "action") === "connect" ? "stream" : "refused",
            hangUp: () => void media.promise.then((leg) => leg.hangUp())
          }
        },
        media: async (id) => asLeg(await found(id).media.promise),
        ended: (id) => found(id).ended.promise,
        resendCallbacks: async (id, order) => {
          const call = found(id)
          const events = order === "same" ? [...call.events] : [...call.events].reverse()
          const statuses: Array<number> = []
          for (const event of events) statuses.push(await post(call.callbackUrl, event, "good"))
          return statuses
        },
        forgeCallback: (id, signature) => {
          const call = found(id)
          return post(call.callbackUrl, call.events[0]!, signature)
        },
        transferredTo: (id) => transferred.get(id),
        close: async () => {
          for (const hangUp of calls) await hangUp()
        }
      }
    }
  }
}
