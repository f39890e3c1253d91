/**
 * `npm run demo -- --provider twilio`: the demo campaign through the whole real path, against the fake
 * Twilio of `@agentline/telephony-twilio/testing` on 127.0.0.1. This process serves the API on a free
 * loopback port (its public URL), and the Twilio adapter's API URL is the fake's: calls are placed over
 * Twilio's REST API, progress arrives as signed status callbacks, answered calls fetch TwiML from the
 * answer route and stream their audio over the media WebSocket, where a small stand-in for the voice
 * runtime greets the callee and counts what it hears. Twilio's seconds run 20 times faster.
 */
import { type CallAudioHandlerShape } from "@agentline/core/audio/CallAudio"
import * as Pcm from "@agentline/core/audio/Pcm"
import { Twilio } from "@agentline/telephony-twilio"
import * as FakeTwilio from "@agentline/telephony-twilio/testing/FakeTwilio"
import type { SqlClient } from "@effect/sql"
import { HttpApiBuilder } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Stream } from "effect"
import { createServer } from "node:http"
import * as Demo from "./Demo.js"
import * as Server from "./Server.js"
import { ServerConfig, type ServerSettings } from "./ServerConfig.js"

const ACCOUNT = { sid: "AC0000000000000000000000000000demo", token: "demo-auth-token" }
const CALLER_ID = "+14155550199"
const MULAW = { encoding: "mulaw", sampleRate: 8000 } as const

const tone = (seconds: number, hz: number) =>
  Int16Array.from({ length: Math.round(seconds * 8000) }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * hz * i) / 8000)))

const behaviourOf: Record<string, FakeTwilio.Behaviour> = {
  // The person says "hello" (half a second of tone) once the stream is connected.
  completed: { answer: "human", talkSeconds: 30, says: Pcm.encode({ sampleRate: 8000, samples: tone(0.5, 330) }, MULAW).data },
  busy: { answer: "busy" },
  no_answer: { answer: "no-answer" },
  voicemail: { answer: "machine" },
  failed: { answer: "failed" }
}

/** What the stand-in voice runtime saw: streams, audio heard and played, in seconds. */
const media = { streams: 0, heardSeconds: 0, playedSeconds: 0 }

/** Greets the callee, then listens until the call ends. */
const greeter: CallAudioHandlerShape = {
  handle: (audio) =>
    Effect.gen(function*() {
      media.streams++
      const greeting = tone(1, 440)
      yield* audio.play({ sampleRate: 8000, samples: greeting })
      media.playedSeconds += greeting.length / 8000
      yield* audio.incoming.pipe(Stream.runForEach((event) =>
        Effect.sync(() => {
          if (event._tag === "Audio") media.heardSeconds += event.frame.samples.length / event.frame.sampleRate
        })
      ))
    })
}

export const run = (options: {
  readonly contacts: number
  readonly settings: ServerSettings
  readonly database: Layer.Layer<SqlClient.SqlClient>
}) =>
  Effect.gen(function*() {
    const fake = yield* Effect.acquireRelease(
      Effect.promise(() => FakeTwilio.start({ accounts: [ACCOUNT], secondMillis: 50 })),
      (f) => Effect.promise(() => f.close())
    )
    fake.addNumber(ACCOUNT.sid, CALLER_ID)
    for (const { group, number } of Demo.contactsFor(options.contacts)) {
      fake.behave(number, group.outcomes.map((outcome) => behaviourOf[outcome]!))
    }
    const port = yield* Demo.freePort
    const publicUrl = `http://127.0.0.1:${port}`
    console.log(`Fake Twilio at ${fake.url}; this server at ${publicUrl} (callbacks, answers and media streams come here).`)
    const served = HttpApiBuilder.serve().pipe(
      Layer.provideMerge(Server.HttpAppLive),
      Layer.provide(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })),
      Layer.provideMerge(ServerConfig.layer({
        ...options.settings,
        port,
        host: "127.0.0.1",
        publicUrl,
        telephonyProviders: [Twilio.make({ apiUrl: fake.url })],
        callAudioHandler: greeter
      })),
      Layer.provideMerge(options.database)
    )
    const summary = Effect.sync(() => {
      const calls = fake.calls()
      console.log(`\nThrough the fake Twilio: ${calls.length} calls placed over its REST API, ` +
        `${calls.reduce((n, c) => n + c.callbacks.length, 0)} signed status callbacks posted, ` +
        `${calls.reduce((n, c) => n + c.answers.length, 0)} TwiML answers fetched.`)
      console.log(`Media streams: ${media.streams} connected; the voice runtime stand-in heard ` +
        `${media.heardSeconds.toFixed(1)} s of callee audio and played ${media.playedSeconds.toFixed(1)} s of greeting.`)
    })
    yield* Demo.run({
      contacts: options.contacts,
      telephony: {
        name: "Demo Twilio (fake)",
        config: { provider: "twilio", account_sid: ACCOUNT.sid, auth_token: ACCOUNT.token, amd_enabled: true },
        callerId: CALLER_ID,
        summary
      }
    }).pipe(Effect.provide(served))
  }).pipe(Effect.scoped)
