/**
 * The application on a real loopback port whose public URL is that port, so a fake provider can call
 * it back (callbacks, answer requests, media WebSockets) as a carrier calls a deployed server. Time is
 * real: fakes play calls out on wall-clock timers.
 */
import type { CallAudioHandlerShape } from "@agentline/core/audio/CallAudio"
import type { TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"
import { type Database, Testing } from "@agentline/sql"
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import type { SqlClient } from "@effect/sql"
import { NodeHttpClient, NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Logger, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as Net from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { createServer } from "node:http"
import * as Server from "../../src/Server.js"
import { ServerConfig, type ServerSettings } from "../../src/ServerConfig.js"

/** A port nothing listens on right now. */
export const freePort = Effect.async<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const port = (probe.address() as Net.AddressInfo).port
    probe.close(() => resume(Effect.succeed(port)))
  })
})

/** Every line the application logged (message and cause), so tests can check what never appears there. */
export const logLines: Array<string> = []

const recordingLogger = Logger.replace(
  Logger.defaultLogger,
  Logger.make(({ cause, message }) => {
    logLines.push(`${Array.isArray(message) ? message.join(" ") : String(message)} ${cause._tag === "Empty" ? "" : JSON.stringify(cause)}`)
  })
)

export const liveApp = (
  dialect: Database.Dialect,
  port: number,
  providers: ReadonlyArray<TelephonyProvider>,
  callAudioHandler?: CallAudioHandlerShape,
  voiceServices?: ServerSettings["voiceServices"],
  settings: Partial<ServerSettings> = {},
  /** The database; a fresh one of `dialect` unless given (two processes sharing one). */
  database: Layer.Layer<SqlClient.SqlClient> = Testing.layerEmptyDatabase(dialect)
) =>
  HttpApiBuilder.serve().pipe(
    Layer.provideMerge(Server.HttpAppLive),
    Layer.provideMerge(
      HttpServer.layerTestClient.pipe(
        Layer.provide(NodeHttpClient.layerWithoutAgent),
        Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: false })),
        Layer.provideMerge(NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" }))
      )
    ),
    Layer.provideMerge(ServerConfig.layer({
      port,
      host: "127.0.0.1",
      dataDir: NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-contract-")),
      publicUrl: `http://127.0.0.1:${port}`,
      version: "test",
      secretKey: Redacted.make("contract-secret-key"),
      publicLinkTtlSeconds: 3600,
      maxUploadBytes: 10 * 1024 * 1024,
      uploadUrlTtlSeconds: 900,
      dispatcherAcquireIntervalMillis: 200,
      dispatcherRecheckMillis: 200,
      telephonyProviders: providers,
      ...(callAudioHandler !== undefined ? { callAudioHandler } : {}),
      ...(voiceServices !== undefined ? { voiceServices } : {}),
      ...settings
    })),
    Layer.provideMerge(database),
    Layer.provide(recordingLogger)
  )
