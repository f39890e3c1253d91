/**
 * A real server on a random loopback port over a fresh database of the given dialect, plus helpers
 * to send any request (including malformed ones) and to create organizations, users and keys.
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { seedOrganization as seedCoreOrganization } from "../../core/test/Harness.js"
import { type Database, Testing } from "@agentline/sql"
import { HttpApiBuilder, HttpClient, HttpClientRequest } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import * as RequestLog from "../src/RequestLog.js"
import * as Server from "../src/Server.js"
import { ServerConfig, type ServerSettings } from "../src/ServerConfig.js"

/**
 * `settings` overrides the test defaults (throttle limits, proxy trust, ...). With `requestLog` the
 * app logs each response as `Server.serve` does; off by default to keep test output quiet.
 */
export const TestApp = (dialect: Database.Dialect, settings: Partial<ServerSettings> = {}, requestLog = false) =>
  (requestLog ? HttpApiBuilder.serve(RequestLog.middleware) : HttpApiBuilder.serve()).pipe(
    Layer.provideMerge(Server.HttpAppLive),
    Layer.provideMerge(NodeHttpServer.layerTest),
    Layer.provideMerge(TestConfig(settings)),
    Layer.provideMerge(Testing.layerEmptyDatabase(dialect))
  )

/** The server settings of the tests (a fresh data directory), with `settings` over them. */
export const TestConfig = (settings: Partial<ServerSettings> = {}) =>
  ServerConfig.layer({
    port: 0,
    host: "127.0.0.1",
    dataDir: NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-http-")),
    publicUrl: "http://127.0.0.1:0",
    version: "test",
    secretKey: Redacted.make("test-secret-key"),
    publicLinkTtlSeconds: 3600,
    maxUploadBytes: 100 * 1024 * 1024,
    uploadUrlTtlSeconds: 900,
    // One process on a TestClock: long timers avoid thousands of wake-ups when a test jumps hours ahead.
    dispatcherLeaseSeconds: 600,
    dispatcherAcquireIntervalMillis: 60_000,
    dispatcherRecheckMillis: 60_000,
    dispatcherSweepIntervalMillis: 60_000,
    // Simulated calls end on the TestClock, which stands still while a test's layer closes.
    dispatcherDrainSeconds: 0,
    // The webhook worker polls on the same clock: rarely, unless a test asks (Webhooks.test.ts).
    webhooks: { pollMillis: 60_000, sweepMillis: 3_600_000 },
    ...settings
  })

export interface Credentials {
  readonly apiKey?: string
  readonly token?: string
}

export interface Reply {
  readonly status: number
  readonly body: any
}

/** Sends a request; `body` is JSON-encoded unless `raw` is given. */
export const call = (
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  options: Credentials & { readonly body?: unknown; readonly raw?: string; readonly headers?: Record<string, string> } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path)
    if (options.apiKey !== undefined) request = HttpClientRequest.setHeader(request, "x-api-key", options.apiKey)
    if (options.token !== undefined) request = HttpClientRequest.bearerToken(request, options.token)
    if (options.headers) request = HttpClientRequest.setHeaders(request, options.headers)
    if (options.raw !== undefined) request = HttpClientRequest.bodyText(request, options.raw, options.headers?.["content-type"] ?? "application/json")
    else if (options.body !== undefined) request = yield* HttpClientRequest.bodyJson(request, options.body)
    const response = yield* client.execute(request)
    const text = yield* response.text
    let body: unknown = text
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      // not JSON: keep the text for the assertion to show
    }
    return { status: response.status, body } satisfies Reply as Reply
  }).pipe(Effect.scoped, Effect.orDie)

/** A new organization with an admin (password already changed, see core's harness) and an API key for it. */
export const seedOrganization = (name?: string) =>
  Effect.gen(function*() {
    const org = yield* seedCoreOrganization(name)
    const key = yield* (yield* ApiKeys).create(org.principal, "test")
    return { ...org, apiKey: key.api_key, apiKeyId: key.id }
  }).pipe(Effect.orDie)

export const dialects = Testing.dialects
