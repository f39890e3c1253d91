/**
 * A request that arrives while the server is starting (migrations, services: about 0.4 s) is answered
 * 503 with `Retry-After`, never left hanging (issue 23: carriers retry exactly then, at restarts, and a
 * client without a timeout waited ten minutes). Once ready, the same port answers normally.
 */
import { Testing } from "@agentline/sql"
import { expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import * as NodeNet from "node:net"
import * as Metrics from "../src/observability/Metrics.js"
import * as Server from "../src/Server.js"
import * as VoiceServices from "../src/voice/VoiceServices.js"
import { TestConfig } from "./Harness.js"
import { freePort } from "./Processes.js"

/** One GET with its own deadline: `undefined` when no answer came in time. */
const get = (url: string, timeoutMillis: number) =>
  Effect.promise(async () => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMillis) })
      return { status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text() }
    } catch {
      return undefined
    }
  })

/** Whether a TCP connection to the port is accepted. */
const accepts = (port: number) =>
  Effect.async<boolean>((resume) => {
    const socket = NodeNet.connect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resume(Effect.succeed(true))
    })
    socket.once("error", () => resume(Effect.succeed(false)))
  })

it.live("a request during startup is answered 503 with Retry-After; after startup, normally", () =>
  Effect.scoped(Effect.gen(function*() {
    const port = yield* Effect.promise(freePort)
    const url = `http://127.0.0.1:${port}/api/v1/health`
    // One of the services is held back until the test has had its answer: the server is "starting"
    // meanwhile (it listens once the database is connected, then migrates and builds the services).
    const release = yield* Deferred.make<void>()
    const slowService = Layer.unwrapEffect(Effect.as(Deferred.await(release), VoiceServices.voiceActivityLayerConfig))
    const server = Server.serve({ port, host: "127.0.0.1" }).pipe(
      Layer.provide(Metrics.PrometheusMetrics.Default),
      Layer.provide(TestConfig({ voiceActivity: slowService })),
      Layer.provide(Testing.layerEmptyDatabase("sqlite"))
    )
    const running = yield* Effect.forkScoped(Layer.launch(server))

    // Wait until the port accepts connections (it listens before the app is built), then ask.
    let listening = yield* accepts(port)
    for (let i = 0; i < 400 && !listening; i++) {
      yield* Effect.sleep("25 millis")
      listening = yield* accepts(port)
    }
    expect(listening).toBe(true)
    const early = yield* get(url, 3000)
    expect(early?.status).toBe(503)
    expect(early?.retryAfter).toBe("1")
    expect(JSON.parse(early?.body ?? "{}").detail).toContain("starting")

    yield* Deferred.succeed(release, undefined)
    let ready = yield* get(url, 5000)
    for (let i = 0; i < 200 && ready?.status !== 200; i++) {
      yield* Effect.sleep("50 millis")
      ready = yield* get(url, 5000)
    }
    expect(ready?.status).toBe(200)
    yield* Fiber.interrupt(running)
  })), { timeout: 60_000 })
