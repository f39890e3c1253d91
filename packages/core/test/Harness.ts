/**
 * Core's services without HTTP, for tests of their rules: the repositories of `@agentline/sql` over a
 * fresh, migrated database of the dialect (SQLite always, PostgreSQL when the test run reaches it), the
 * simulator and the test's own providers as the telephony registry, blobs in a temporary directory,
 * webhooks handed to a transport the test may replace. Composed as the server composes them
 * (`http/src/Server.ts`), each line over the lines below it. Time is the test's (TestClock in
 * `it.effect`): the dispatcher's and the webhook worker's periodic timers are long, so jumping the clock
 * hours ahead wakes them a few times only.
 */
import type { Principal } from "@agentline/api/Authentication"
import { FsBlobStore } from "@agentline/blob-fs"
import { type Database, Repositories, Testing } from "@agentline/sql"
import { Simulator } from "@agentline/telephony-simulator"
import { Effect, Layer, Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { ApiKeys } from "../src/api-keys/ApiKeys.js"
import { CallAudioHandler, type CallAudioHandlerShape } from "../src/audio/CallAudio.js"
import * as OutboundRoutes from "../src/calls/OutboundRoutes.js"
import { ProviderConnections } from "../src/calls/ProviderConnections.js"
import { Calls } from "../src/calls/Calls.js"
import { Campaigns } from "../src/campaigns/Campaigns.js"
import { CampaignTransitions } from "../src/campaigns/CampaignTransitions.js"
import { Credentials } from "../src/credentials/Credentials.js"
import { SecretBox } from "../src/crypto/SecretBox.js"
import { Dispatcher } from "../src/dispatcher/Dispatcher.js"
import { type DispatcherOptions, DispatcherSettings } from "../src/dispatcher/DispatcherSettings.js"
import { DoNotCall } from "../src/do-not-call/DoNotCall.js"
import { MediaStreams } from "../src/media/MediaStreams.js"
import { Transfers } from "../src/transfers/Transfers.js"
import * as NodeTools from "../src/tools/NodeTools.js"
import { MediaTokens } from "../src/media/MediaTokens.js"
import { Organizations } from "../src/organizations/Organizations.js"
import { acting } from "../src/organizations/Principal.js"
import { PhoneNumbers } from "../src/phone-numbers/PhoneNumbers.js"
import { PublicUrls } from "../src/PublicUrls.js"
import { Recordings, RecordingSpeechToText } from "../src/recordings/Recordings.js"
import { PostCall } from "../src/runs/PostCall.js"
import { PublicLinks } from "../src/runs/PublicLinks.js"
import { Runs } from "../src/runs/Runs.js"
import { CallEventSink } from "../src/telephony/CallEventSink.js"
import { InProcessInbound } from "../src/telephony/InProcessInbound.js"
import { TelephonyConfigs } from "../src/telephony/TelephonyConfigs.js"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyRegistry } from "../src/telephony/TelephonyRegistry.js"
import { Uploads, UploadSettings } from "../src/uploads/Uploads.js"
import { Users } from "../src/users/Users.js"
import { WebhookDelivery } from "../src/webhook-delivery/WebhookDelivery.js"
import { WebhookTransport } from "../src/webhook-delivery/WebhookTransport.js"
import { WebhookOutbox } from "../src/webhooks/WebhookOutbox.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import { type WebhookOptions, WebhookSettings } from "../src/webhooks/WebhookSettings.js"
import { OutboundTargets } from "../src/OutboundTargets.js"
import { Workflows } from "../src/workflows/Workflows.js"

export const dialects = Testing.dialects

export const PUBLIC_URL = "https://agentline.test"

/** This server's addresses, every route present (as the server's own `PublicUrls`). */
export const publicUrls = PublicUrls.layer({
  telephonyCallback: ({ attemptId, provider }) => `${PUBLIC_URL}/callbacks/${provider}/${attemptId}`,
  telephonyAnswer: ({ attemptId, provider }) => `${PUBLIC_URL}/answer/${provider}/${attemptId}`,
  telephonyTransferResult: ({ transferId }) => `${PUBLIC_URL}/transfer-result/${transferId}`,
  telephonyInbound: ({ provider }) => `${PUBLIC_URL}/inbound/${provider}`,
  mediaStream: ({ provider, token }) => `${PUBLIC_URL.replace(/^http/, "ws")}/media/${provider}/${token}`,
  contactsUpload: ({ key, query }) => `${PUBLIC_URL}/upload/${key}?${query}`,
  recordingUpload: ({ key, query }) => `${PUBLIC_URL}/upload/${key}?${query}`,
  run: ({ runId, workflowId }) => `${PUBLIC_URL}/workflow/${workflowId}/runs/${runId}`,
  runArtifact: ({ artifact, token }) => `${PUBLIC_URL}/download/${token}/${artifact}`,
  campaignSource: ({ token }) => `${PUBLIC_URL}/download/campaign-source/${token}`
})

/** A receiver that answers every webhook 200 at once. */
export const acceptingTransport = Layer.succeed(WebhookTransport, {
  send: () => Effect.succeed({ status: 200, error: null, latencyMillis: 1 })
})

export interface TestOptions {
  /** Providers besides the simulator (replacing one of the same name). */
  readonly providers?: ReadonlyArray<TelephonyProvider>
  readonly dispatcher?: Partial<DispatcherOptions>
  readonly webhooks?: Partial<WebhookOptions>
  /** Where webhooks go (default: `acceptingTransport`). */
  readonly transport?: Layer.Layer<WebhookTransport>
  /** What serves answered calls' audio (default: silence until the caller hangs up). */
  readonly callAudio?: CallAudioHandlerShape
}

const secret = Redacted.make("core-test-secret")

const infrastructure = (options: TestOptions) =>
  Layer.mergeAll(
    FsBlobStore.layer({ root: NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-core-")) }),
    PublicLinks.layer({ secret, ttlSeconds: 3600 }),
    publicUrls,
    SecretBox.layer(secret),
    UploadSettings.layer({ secret, ttlSeconds: 900, maxBytes: 100 * 1024 * 1024 }),
    Layer.scoped(TelephonyRegistry, Effect.map(Simulator.make(), (simulator) => TelephonyRegistry.make([simulator, ...(options.providers ?? [])]))),
    // One process on a TestClock: long periodic timers, so a test that jumps hours ahead wakes them rarely.
    WebhookSettings.layer({ pollMillis: 60_000, sweepMillis: 3_600_000, ...options.webhooks }),
    OutboundTargets.layer({ allowPrivate: options.webhooks?.allowPrivate ?? false }),
    options.transport ?? acceptingTransport,
    DispatcherSettings.layer({
      leaseSeconds: 600,
      acquireIntervalMillis: 60_000,
      recheckMillis: 60_000,
      sweepIntervalMillis: 60_000,
      // Simulated calls end on the TestClock, which stands still while a test's layer closes.
      drainMillis: 0,
      ...options.dispatcher
    }),
    CallAudioHandler.layer(options.callAudio ?? CallAudioHandler.silent),
    Layer.succeed(RecordingSpeechToText, Option.none())
  )

/** Every service of core over a fresh database of `dialect`. */
export const TestServices = (dialect: Database.Dialect, options: TestOptions = {}) =>
  Layer.mergeAll(Campaigns.Default, Calls.Default, MediaStreams.Default, WebhookDelivery.Default, ProviderConnections.live, Recordings.Default).pipe(
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
      TelephonyConfigs.Default,
      Uploads.Default,
      Webhooks.Default,
      Credentials.Default,
      CampaignTransitions.Default
    )),
    Layer.provideMerge(Layer.mergeAll(ProviderConnections.changes, Recordings.playable, NodeTools.layer)),
    Layer.provideMerge(ProviderConnections.Default),
    Layer.provideMerge(PostCall.Default),
    Layer.provideMerge(WebhookOutbox.Default),
    Layer.provideMerge(Layer.mergeAll(MediaTokens.Default, InProcessInbound.Default, CallEventSink.Default)),
    Layer.provideMerge(Layer.mergeAll(Repositories.layer, infrastructure(options))),
    Layer.provideMerge(Testing.layerDatabase(dialect))
  )

let counter = 0

/** A new organization and its admin, acting as the admin. */
export const seedOrganization = (name = `org-${++counter}-${Math.random().toString(36).slice(2, 6)}`) =>
  Effect.gen(function*() {
    const admin = yield* (yield* Users).create({
      email: `admin@${name}.test`,
      password: "initial-password",
      role: "admin",
      organization: { name },
      mustChangePassword: false
    })
    const principal: Principal = acting(admin)
    return { name, admin, principal }
  }).pipe(Effect.orDie)
