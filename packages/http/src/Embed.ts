/**
 * Mounting Agentline inside an existing backend (Express, Fastify, Hono, plain node:http).
 *
 * ```ts
 * const agentline = await Embed.makeHandlers({ databaseUrl: process.env.DATABASE_URL })
 * http.createServer((req, res) => req.url?.startsWith("/api/v1/") ? agentline.node(req, res) : other(req, res))
 * // fetch-style hosts (Hono, Bun, Deno, workers): agentline.fetch(request) → Promise<Response>
 * await agentline.dispose() // on shutdown
 * ```
 *
 * One `ManagedRuntime` backs both handlers: one connection pool, one set of background workers.
 * Express strips the mount path (restore `req.url = req.originalUrl`), and a body parser mounted before
 * the handler consumes the body: mount Agentline first. See `examples/embed-node-http.ts`.
 */
import { Database } from "@agentline/sql"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { SqlClient } from "@effect/sql"
import { HttpApiBuilder, HttpApp } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import * as NodePath from "node:path"
import * as Server from "./Server.js"
import { DEFAULT_MAX_UPLOAD_BYTES, DEFAULT_UPLOAD_URL_TTL_SECONDS, secretKey, ServerConfig, VERSION } from "./ServerConfig.js"

export interface EmbedOptions {
  /** PostgreSQL URL; when absent, SQLite in `dataDir`. */
  readonly databaseUrl?: string | undefined
  /** Where the SQLite file and blobs live (default `./data`). */
  readonly dataDir?: string | undefined
  /** The public address of the host server, used in links and telephony callbacks. */
  readonly publicUrl?: string | undefined
  /** Provide your own `SqlClient` instead (for example a client your service already has). */
  readonly database?: Layer.Layer<SqlClient.SqlClient, unknown> | undefined
  /** Encrypts provider credentials and signs links; default `AGENTLINE_SECRET_KEY` or a key generated into `dataDir`. */
  readonly secretKey?: string | undefined
  readonly publicLinkTtlSeconds?: number | undefined
  /** Largest contacts upload in bytes (default 100 MiB). */
  readonly maxUploadBytes?: number | undefined
  /** Lifetime of presigned upload URLs in seconds (default 900). */
  readonly uploadUrlTtlSeconds?: number | undefined
  /** Your own telephony adapters, registered next to the first-party ones and the simulator; one named like a built-in provider replaces it. */
  readonly telephonyProviders?: ReadonlyArray<TelephonyProvider> | undefined
  /**
   * Reverse proxies in front of the host server whose `X-Forwarded-For` entries are trusted for the
   * client address that login throttling counts (default 0: the socket address; docs/security.md).
   */
  readonly trustedProxyHops?: number | undefined
  /**
   * Also serve the web dashboard (default false: embedded, Agentline answers its API only). When set,
   * route `/` and the dashboard's paths to the handler as well (docs/dashboard.md).
   */
  readonly dashboard?: boolean | undefined
}

export interface Handlers {
  readonly node: (req: IncomingMessage, res: ServerResponse) => void
  readonly fetch: (request: Request) => Promise<Response>
  readonly dispose: () => Promise<void>
}

export const makeHandlers = async (options: EmbedOptions = {}): Promise<Handlers> => {
  const dataDir = options.dataDir ?? "./data"
  const database = options.database ?? Database.layerFromSettings({
    databaseUrl: Option.map(Option.fromNullable(options.databaseUrl), Redacted.make),
    dataDir: NodePath.resolve(dataDir)
  })
  const layer = Server.HttpAppLive.pipe(
    Layer.provideMerge(HttpApiBuilder.Router.Live),
    Layer.provideMerge(HttpApiBuilder.Middleware.layer),
    Layer.provideMerge(NodeHttpServer.layerContext),
    Layer.provide(ServerConfig.layer({
      port: 0,
      host: "",
      dataDir,
      publicUrl: (options.publicUrl ?? "http://localhost").replace(/\/$/, ""),
      version: VERSION,
      secretKey: options.secretKey !== undefined ? Redacted.make(options.secretKey) : await Effect.runPromise(secretKey(dataDir)),
      publicLinkTtlSeconds: options.publicLinkTtlSeconds ?? 3600,
      ...(options.telephonyProviders !== undefined ? { telephonyProviders: options.telephonyProviders } : {}),
      maxUploadBytes: options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES,
      uploadUrlTtlSeconds: options.uploadUrlTtlSeconds ?? DEFAULT_UPLOAD_URL_TTL_SECONDS,
      trustedProxyHops: options.trustedProxyHops ?? 0,
      dashboard: options.dashboard ?? false
    })),
    Layer.provide(Layer.orDie(database))
  )
  const runtime = ManagedRuntime.make(layer)
  const app = await runtime.runPromise(HttpApiBuilder.httpApp)
  const node = await runtime.runPromise(NodeHttpServer.makeHandler(app))
  const rt = await runtime.runtime()
  const fetch = HttpApp.toWebHandlerRuntime(rt)(app)
  return {
    node,
    fetch: (request) => fetch(request),
    dispose: () => runtime.dispose()
  }
}
