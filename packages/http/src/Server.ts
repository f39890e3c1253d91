/**
 * Composition of the application, done once here at the edge: storage, services, the API and its
 * middlewares. `main.ts` serves it on a port; `Embed.ts` turns it into handlers for another server;
 * tests provide it a test database.
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { PublicLinks } from "@agentline/core/runs/PublicLinks"
import { Runs } from "@agentline/core/runs/Runs"
import { RunSearch } from "@agentline/core/runs/RunSearch"
import { Reports } from "@agentline/core/runs/Reports"
import { LoginPolicy, Users } from "@agentline/core/users/Users"
import * as LoginThrottle from "@agentline/core/users/LoginThrottle"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { WorkflowCopies } from "@agentline/core/workflows/WorkflowCopies"
import { Calls } from "@agentline/core/calls/Calls"
import { CallAudioHandler } from "@agentline/core/audio/CallAudio"
import { MediaStreams } from "@agentline/core/media/MediaStreams"
import { Transfers } from "@agentline/core/transfers/Transfers"
import { MediaTokens } from "@agentline/core/media/MediaTokens"
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { CampaignReports } from "@agentline/core/campaigns/CampaignReports"
import { CallTraces } from "@agentline/core/CallTraces"
import { Dispatcher, DispatcherSettings } from "@agentline/core/dispatcher/Dispatcher"
import { PhoneNumbers } from "@agentline/core/phone-numbers/PhoneNumbers"
import { SecretBox } from "@agentline/core/crypto/SecretBox"
import { CallEventSink } from "@agentline/core/telephony/CallEventSink"
import { InProcessInbound } from "@agentline/core/telephony/InProcessInbound"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import * as OutboundRoutes from "@agentline/core/calls/OutboundRoutes"
import { ProviderConnections } from "@agentline/core/calls/ProviderConnections"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Uploads, UploadSettings } from "@agentline/core/uploads/Uploads"
import { FsBlobStore } from "@agentline/blob-fs"
import { VoiceAgent } from "@agentline/voice/session/VoiceAgent"
import * as VoiceReadiness from "./voice/VoiceReadiness.js"
import * as VoiceServices from "./voice/VoiceServices.js"
import { Migrations, Repositories } from "@agentline/sql"
import type { SqlClient } from "@effect/sql"
import { HttpApiBuilder, HttpApiScalar, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import * as NodePath from "node:path"
import type * as NodeHttp from "node:http"
import { createServer } from "node:http"
import { AgentlineApi } from "@agentline/api/Api"
import { ApiKeysLive } from "./api-keys/Http.js"
import { ConfigurationsLive } from "./configurations/Http.js"
import { DoNotCallLive } from "./do-not-call/Http.js"
import { WebhooksLive } from "./webhooks/Http.js"
import { CredentialsLive } from "./credentials/Http.js"
import { Credentials } from "@agentline/core/credentials/Credentials"
import * as NodeTools from "@agentline/core/tools/NodeTools"
import { ToolCalls } from "@agentline/core/tools/ToolCalls"
import { Tools } from "@agentline/core/tools/Tools"
import { ToolsLive } from "./tools/Http.js"
import * as NodeToolTransport from "./tools/NodeToolTransport.js"
import { Recordings, RecordingSpeechToText } from "@agentline/core/recordings/Recordings"
import { SpeechToText } from "@agentline/core/voice/Speech"
import { RecordingsLive } from "./recordings/Http.js"
import * as NodeWebhookTransport from "./webhooks/NodeWebhookTransport.js"
import { CampaignTransitions } from "@agentline/core/campaigns/CampaignTransitions"
import { WebhookDelivery } from "@agentline/core/webhook-delivery/WebhookDelivery"
import { WebhookOutbox } from "@agentline/core/webhooks/WebhookOutbox"
import { PostCall } from "@agentline/core/runs/PostCall"
import { Webhooks } from "@agentline/core/webhooks/Webhooks"
import { WebhookSettings } from "@agentline/core/webhooks/WebhookSettings"
import { OutboundTargets } from "@agentline/core/OutboundTargets"
import { DoNotCall } from "@agentline/core/do-not-call/DoNotCall"
import { Embeds } from "@agentline/core/embed/Embeds"
import * as RateLimiterMemory from "@agentline/core/RateLimiterMemory"
import { AuthLive } from "./auth/Http.js"
import * as EmbedCors from "./embed/EmbedCors.js"
import * as WidgetScript from "./embed/WidgetScript.js"
import { EmbedTokensLive, PublicEmbedLive } from "./embed/Http.js"
import { PublicEmbedChatLive, TextChatLive } from "./text-chat/Http.js"
import * as WebCallsHttp from "./web-calls/Http.js"
import { WebCalls } from "@agentline/core/web-calls/WebCalls"
import { EmbedChat } from "@agentline/voice/text-chat/EmbedChat"
import { TextChat } from "@agentline/voice/text-chat/TextChat"
import * as Authentication from "./Authentication.js"
import * as ErrorHandling from "./ErrorHandling.js"
import * as RequestGuard from "./RequestGuard.js"
import * as RequestLog from "./RequestLog.js"
import * as Metrics from "./observability/Metrics.js"
import * as Readiness from "./observability/Readiness.js"
import { HealthLive } from "./health/Http.js"
import { OrganizationsLive } from "./organizations/Http.js"
import * as PublicUrlsLive from "./PublicUrlsLive.js"
import * as Dashboard from "./Dashboard.js"
import { ServerConfig } from "./ServerConfig.js"
import { CallsLive, TelephonyCallbacksLive, TestCallsLive } from "./calls/Http.js"
import { CampaignsLive, PublicCampaignSourceLive } from "./campaigns/Http.js"
import { PhoneNumbersLive } from "./phone-numbers/Http.js"
import { PublicDownloadsLive } from "./runs/Http.js"
import { RunsLive } from "./runs/RunSearchHttp.js"
import { ReportsLive } from "./organizations/ReportsHttp.js"
import { WorkflowOperationsLive } from "./workflows/OperationsHttp.js"
import { TelephonyConfigsLive } from "./telephony/Http.js"
import { servedApi } from "./OpenApiSpec.js"
import * as TelephonyWebhooks from "./telephony-webhooks/Routes.js"
import * as Providers from "./telephony/Providers.js"
import { UploadsLive, UploadTargetLive } from "./uploads/Http.js"
import { UsersLive } from "./users/Http.js"
import { NodeTypesLive, WorkflowsLive } from "./workflows/Http.js"

/**
 * Adapters and settings derived from the server configuration: blobs under the data directory, link
 * signing, credential encryption, the telephony providers (the eight first-party configurations and the
 * simulator), and the dispatcher's identity.
 */
export const InfrastructureLive = Layer.unwrapEffect(Effect.map(ServerConfig, (config) =>
  Layer.mergeAll(
    FsBlobStore.layer({ root: NodePath.join(config.dataDir, "blobs") }),
    PublicLinks.layer({ secret: config.secretKey, ttlSeconds: config.publicLinkTtlSeconds }),
    PublicUrlsLive.layer(config.publicUrl),
    Layer.succeed(LoginPolicy, {
      ...LoginThrottle.defaultPolicy,
      maxFailuresPerAccount: config.loginMaxFailuresPerAccount ?? LoginThrottle.defaultPolicy.maxFailuresPerAccount,
      maxFailuresPerAddress: config.loginMaxFailuresPerAddress ?? LoginThrottle.defaultPolicy.maxFailuresPerAddress
    }),
    SecretBox.layer(config.secretKey),
    UploadSettings.layer({
      secret: config.secretKey,
      ttlSeconds: config.uploadUrlTtlSeconds,
      maxBytes: config.maxUploadBytes
    }),
    Providers.registryLayer(config.telephonyProviders),
    WebhookSettings.layer(config.webhooks),
    OutboundTargets.layer({ allowPrivate: config.webhooks?.allowPrivate ?? false }),
    NodeWebhookTransport.layer,
    NodeToolTransport.layer,
    RateLimiterMemory.layer,
    DispatcherSettings.layer({
      ...(config.dispatcherLeaseSeconds !== undefined ? { leaseSeconds: config.dispatcherLeaseSeconds } : {}),
      ...(config.dispatcherAcquireIntervalMillis !== undefined ? { acquireIntervalMillis: config.dispatcherAcquireIntervalMillis } : {}),
      ...(config.dispatcherRecheckMillis !== undefined ? { recheckMillis: config.dispatcherRecheckMillis } : {}),
      ...(config.dispatcherSweepIntervalMillis !== undefined ? { sweepIntervalMillis: config.dispatcherSweepIntervalMillis } : {}),
      ...(config.dispatcherReconcileMarginSeconds !== undefined
        ? { reconcileMarginSeconds: config.dispatcherReconcileMarginSeconds }
        : {}),
      ...(config.dispatcherDrainSeconds !== undefined ? { drainMillis: config.dispatcherDrainSeconds * 1000 } : {})
    })
  )))

/**
 * What answers calls' audio: the voice runtime (`VoiceAgent`) over the configured speech and language
 * services, unless the embedding application gave its own handler. With the runtime, its readiness
 * (which services, what is missing) is logged as it starts and kept for the dashboard.
 */
export const CallAudioLive = Layer.unwrapEffect(Effect.map(ServerConfig, (config) =>
  config.callAudioHandler !== undefined
    ? CallAudioHandler.layer(config.callAudioHandler)
    : Layer.mergeAll(
      Layer.effect(CallAudioHandler, Effect.map(VoiceAgent, (agent) => CallAudioHandler.of({ handle: agent.handle }))).pipe(
        Layer.provide(VoiceAgent.Default)
      ),
      VoiceReadiness.layer({ fromEnvironment: config.voiceServices === undefined })
    ).pipe(
      Layer.provide(Layer.mergeAll(
        config.voiceServices ?? VoiceServices.layerConfig,
        VoiceServices.overridesLayer,
        config.voiceActivity ?? VoiceServices.voiceActivityLayerConfig
      ))
    )))

/**
 * The speech-to-text service recordings are transcribed with: the voice runtime's (the same layer, so
 * built once), none when an embedding application serves calls with its own handler.
 */
export const RecordingSpeechToTextLive = Layer.unwrapEffect(Effect.map(ServerConfig, (config) =>
  config.callAudioHandler !== undefined
    ? Layer.succeed(RecordingSpeechToText, Option.none())
    : Layer.effect(RecordingSpeechToText, Effect.map(SpeechToText, Option.some)).pipe(
      Layer.provide(config.voiceServices ?? VoiceServices.layerConfig)
    )))

/** Text chat (the dashboard's and the embed's) over the configured language model (the voice runtime's, built once). */
export const TextChatServicesLive = Layer.unwrapEffect(Effect.map(ServerConfig, (config) =>
  EmbedChat.Default.pipe(
    Layer.provideMerge(TextChat.Default),
    Layer.provide(config.voiceServices ?? VoiceServices.layerConfig)
  )))

/**
 * The domain services over the SQL repositories; needs a `SqlClient` (already migrated or not) and the
 * server configuration. Each line depends only on the lines below it.
 */
export const ServicesLive = Layer.mergeAll(
  Campaigns.Default,
  CampaignReports.Default,
  Calls.Default,
  MediaStreams.Default,
  WebhookDelivery.Default,
  ProviderConnections.live,
  Recordings.Default,
  Embeds.Default,
  TextChatServicesLive,
  WebCalls.Default,
  WorkflowCopies.Default
).pipe(
  Layer.provideMerge(Dispatcher.campaignDialer),
  Layer.provideMerge(Dispatcher.Default),
  Layer.provideMerge(Transfers.Default),
  Layer.provideMerge(Layer.mergeAll(PhoneNumbers.Default, OutboundRoutes.layer, DoNotCall.Default)),
  Layer.provideMerge(Layer.mergeAll(
    Users.Default,
    ApiKeys.Default,
    Organizations.Default,
    Workflows.Default,
    Runs.Default,
    RunSearch.Default,
    Reports.Default,
    TelephonyConfigs.Default,
    Uploads.Default,
    Webhooks.Default,
    Credentials.Default,
    Tools.Default,
    CampaignTransitions.Default
  )),
  Layer.provideMerge(Layer.mergeAll(ProviderConnections.changes, Recordings.playable, NodeTools.layer)),
  Layer.provideMerge(ProviderConnections.Default),
  Layer.provideMerge(PostCall.Default),
  Layer.provideMerge(WebhookOutbox.Default),
  Layer.provideMerge(Layer.mergeAll(MediaTokens.Default, CallAudioLive, InProcessInbound.Default, CallEventSink.Default, RecordingSpeechToTextLive)),
  Layer.provideMerge(ToolCalls.Default),
  // One for the dispatcher (which starts the calls' traces), media streams and webhook deliveries (which join them).
  Layer.provideMerge(CallTraces.Default),
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

/**
 * The API, its OpenAPI document describing the telephony providers this server was built with (the
 * API definition cannot know them: an embedding application adds or replaces some).
 */
export const ApiLive = Layer.unwrapEffect(
  Effect.map(TelephonyRegistry, (registry) => HttpApiBuilder.api(servedApi(registry)))
).pipe(
  Layer.provide([
    HealthLive,
    AuthLive,
    UsersLive,
    ApiKeysLive,
    ConfigurationsLive,
    DoNotCallLive,
    WebhooksLive,
    CredentialsLive,
    ToolsLive,
    RecordingsLive,
    EmbedTokensLive,
    PublicEmbedLive,
    TextChatLive,
    PublicEmbedChatLive,
    WebCallsHttp.WebCallsLive,
    OrganizationsLive,
    WorkflowsLive,
    NodeTypesLive,
    PublicDownloadsLive,
    RunsLive,
    WorkflowOperationsLive,
    ReportsLive,
    TelephonyConfigsLive,
    PhoneNumbersLive,
    CampaignsLive,
    PublicCampaignSourceLive,
    CallsLive,
    TestCallsLive,
    TelephonyCallbacksLive,
    UploadsLive,
    UploadTargetLive
  ]),
  Layer.provide(Authentication.layer)
)

/**
 * The built dashboard at `/` when the settings ask for it (`dashboard`); when its build is missing, the
 * server says so and serves the API alone.
 */
export const DashboardLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* ServerConfig
  if (config.dashboard !== true) return Layer.empty
  const directory = Dashboard.locateAssets()
  if (Option.isNone(directory)) {
    yield* Effect.logWarning(
      "The dashboard is not built (packages/dashboard/dist is missing; `npm run build` makes it): serving the API only"
    )
    return Layer.empty
  }
  return Dashboard.layer(directory.value)
}))

/**
 * Everything the HTTP app needs except the database client and the server settings: the API with its
 * error handling, the OpenAPI document at /api/v1/openapi.json, the docs page at /docs and, when
 * enabled, the dashboard at /.
 */
export const HttpAppLive = Layer.mergeAll(
  // The guard wraps the error handling (it is added after it), so no request reaches the API unchecked.
  RequestGuard.layer(AgentlineApi).pipe(Layer.provide(ErrorHandling.layer(AgentlineApi))),
  HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" }),
  TelephonyWebhooks.layer,
  WebCallsHttp.routeLayer,
  HttpApiScalar.layer({ path: "/docs" }),
  DashboardLive,
  // The embed's CORS answers before the server-wide one (it is added after it), for its own paths only.
  EmbedCors.layer.pipe(Layer.provide(HttpApiBuilder.middlewareCors())),
  WidgetScript.routeLayer,
  RequestLog.untracedCredentials,
  Readiness.routeLayer
).pipe(
  Layer.provideMerge(ApiLive),
  Layer.provideMerge(ServicesLive),
  Layer.provideMerge(Readiness.Readiness.Default),
  Layer.provide(MigrationsLive)
)

export type AppRequirements = SqlClient.SqlClient | ServerConfig

/**
 * A Node server that answers 503 (`Retry-After: 1`) to the requests that arrive before the app's handler
 * is attached: it listens once the database is connected, then migrates and builds the services, and a
 * request in between would otherwise wait with no answer (carriers retry exactly then, at restarts).
 */
const createStartingServer = (): NodeHttp.Server => {
  const server = createServer()
  server.on("request", (_request: NodeHttp.IncomingMessage, response: NodeHttp.ServerResponse) => {
    // Once the app's own listener is attached, it answers everything.
    if (server.listenerCount("request") > 1) return
    response.writeHead(503, { "content-type": "application/json", "retry-after": "1", connection: "close" })
    response.end(JSON.stringify({ detail: "The server is starting; try again in a moment" }))
  })
  return server
}

/**
 * The standalone server on `port`/`host`, with the request log and metrics, `/metrics` on this port too
 * when a token protects it (`observability/Metrics.ts`; needs `PrometheusMetrics`), and the graceful stop
 * of `observability/Readiness.ts`: built after the server serves, so at SIGTERM it runs (readiness 503,
 * the calls drain) while requests are still answered, and the listener closes last.
 */
export const serve = (options: { readonly port: number; readonly host: string; readonly metrics?: Metrics.MetricsSettings }) =>
  Readiness.drainLayer.pipe(
    Layer.provide(HttpApiBuilder.serve((app) => Metrics.httpMiddleware(RequestLog.middleware(app)))),
    Layer.provide(options.metrics === undefined ? Layer.empty : Metrics.routeLayer(options.metrics)),
    Layer.provide(HttpAppLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createStartingServer, { port: options.port, host: options.host }))
  )
