/**
 * Composition of the application, done once here at the edge: storage, services, the API and its
 * middlewares. `main.ts` serves it on a port; `Embed.ts` turns it into handlers for another server;
 * tests provide it a test database.
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { PublicLinks } from "@agentline/core/runs/PublicLinks"
import { Runs } from "@agentline/core/runs/Runs"
import { Users } from "@agentline/core/users/Users"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { Calls } from "@agentline/core/calls/Calls"
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { Dispatcher, DispatcherSettings } from "@agentline/core/dispatcher/Dispatcher"
import { PhoneNumbers } from "@agentline/core/phone-numbers/PhoneNumbers"
import { PublicUrl } from "@agentline/core/PublicUrl"
import { firstPartyProviders } from "@agentline/core/telephony/ProviderConfigs"
import { SecretBox } from "@agentline/core/telephony/Secrets"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyProvider"
import { Uploads, UploadSettings } from "@agentline/core/uploads/Uploads"
import { Simulator } from "@agentline/telephony-simulator"
import { FsBlobStore } from "@agentline/blob-fs"
import { Migrations, Repositories } from "@agentline/sql"
import type { SqlClient } from "@effect/sql"
import { HttpApiBuilder, HttpApiScalar, HttpMiddleware, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import * as NodePath from "node:path"
import { createServer } from "node:http"
import { AgentlineApi } from "./Api.js"
import { ApiKeysLive } from "./api-keys/Http.js"
import { AuthLive } from "./auth/Http.js"
import * as Authentication from "./Authentication.js"
import * as ErrorHandling from "./ErrorHandling.js"
import { HealthLive } from "./health/Http.js"
import { OrganizationsLive } from "./organizations/Http.js"
import { ServerConfig } from "./ServerConfig.js"
import { CallsLive, TelephonyCallbacksLive } from "./calls/Http.js"
import { CampaignsLive } from "./campaigns/Http.js"
import { PhoneNumbersLive } from "./phone-numbers/Http.js"
import { PublicDownloadsLive } from "./runs/Http.js"
import { TelephonyConfigsLive } from "./telephony/Http.js"
import { UploadsLive, UploadTargetLive } from "./uploads/Http.js"
import { UsersLive } from "./users/Http.js"
import { WorkflowsLive } from "./workflows/Http.js"

/**
 * Adapters and settings derived from the server configuration: blobs under the data directory, link
 * signing, credential encryption, the telephony providers (the eight first-party configurations and the
 * simulator), and the dispatcher's identity.
 */
export const InfrastructureLive = Layer.unwrapEffect(Effect.map(ServerConfig, (config) =>
  Layer.mergeAll(
    FsBlobStore.layer({ root: NodePath.join(config.dataDir, "blobs") }),
    PublicLinks.layer({ baseUrl: config.publicUrl, secret: config.secretKey, ttlSeconds: config.publicLinkTtlSeconds }),
    PublicUrl.layer(config.publicUrl),
    SecretBox.layer(config.secretKey),
    UploadSettings.layer({
      baseUrl: config.publicUrl,
      secret: config.secretKey,
      ttlSeconds: config.uploadUrlTtlSeconds,
      maxBytes: config.maxUploadBytes
    }),
    Layer.scoped(TelephonyRegistry, Effect.map(Simulator.make, (simulator) => TelephonyRegistry.make([...firstPartyProviders, simulator, ...(config.telephonyProviders ?? [])]))),
    DispatcherSettings.layer({
      callbackBaseUrl: config.publicUrl,
      ...(config.dispatcherLeaseSeconds !== undefined ? { leaseSeconds: config.dispatcherLeaseSeconds } : {}),
      ...(config.dispatcherAcquireIntervalMillis !== undefined ? { acquireIntervalMillis: config.dispatcherAcquireIntervalMillis } : {}),
      ...(config.dispatcherRecheckMillis !== undefined ? { recheckMillis: config.dispatcherRecheckMillis } : {})
    })
  )))

/**
 * The domain services over the SQL repositories; needs a `SqlClient` (already migrated or not) and the
 * server configuration. Each line depends only on the lines below it.
 */
export const ServicesLive = Layer.mergeAll(Campaigns.Default, Calls.Default).pipe(
  Layer.provideMerge(Dispatcher.Default),
  Layer.provideMerge(Layer.mergeAll(PhoneNumbers.Default, TelephonyConfigs.routing)),
  Layer.provideMerge(Layer.mergeAll(
    Users.Default,
    ApiKeys.Default,
    Organizations.Default,
    Workflows.Default,
    Runs.Default,
    TelephonyConfigs.Default,
    Uploads.Default
  )),
  Layer.provideMerge(Layer.mergeAll(Repositories.layer, InfrastructureLive))
)

/**
 * What the administrative commands need (users, keys, organizations): no dispatcher, so a one-off
 * `agentline users create` never starts dialing campaigns.
 */
export const AdminServicesLive = Layer.mergeAll(Users.Default, ApiKeys.Default, Organizations.Default).pipe(
  Layer.provideMerge(Repositories.layer)
)

/** Runs the migrations when built: the server never runs on an old schema. */
export const MigrationsLive = Layer.effectDiscard(Migrations.run)

export const ApiLive = HttpApiBuilder.api(AgentlineApi).pipe(
  Layer.provide([
    HealthLive,
    AuthLive,
    UsersLive,
    ApiKeysLive,
    OrganizationsLive,
    WorkflowsLive,
    PublicDownloadsLive,
    TelephonyConfigsLive,
    PhoneNumbersLive,
    CampaignsLive,
    CallsLive,
    TelephonyCallbacksLive,
    UploadsLive,
    UploadTargetLive
  ]),
  Layer.provide(Authentication.layer)
)

/**
 * Everything the HTTP app needs except the database client and the server settings: the API with its
 * error handling, the OpenAPI document at /api/v1/openapi.json and the docs page at /docs.
 */
export const HttpAppLive = Layer.mergeAll(
  ErrorHandling.layer(AgentlineApi),
  HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" }),
  HttpApiScalar.layer({ path: "/docs" }),
  HttpApiBuilder.middlewareCors()
).pipe(Layer.provideMerge(ApiLive), Layer.provideMerge(ServicesLive), Layer.provide(MigrationsLive))

export type AppRequirements = SqlClient.SqlClient | ServerConfig

/** The standalone server on `port`/`host`. */
export const serve = (options: { readonly port: number; readonly host: string }) =>
  HttpApiBuilder.serve(HttpMiddleware.logger).pipe(
    Layer.provide(HttpAppLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host }))
  )
