import type { VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import type { CallAudioHandlerShape } from "@agentline/core/audio/CallAudio"
import type { TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"
import type { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import type { AgentLanguageModel } from "@agentline/voice/session/LanguageModelTools"
import * as LoginThrottle from "@agentline/core/users/LoginThrottle"
import type { WebhookOptions } from "@agentline/core/webhooks/WebhookSettings"
import { Config, type ConfigError, Context, Effect, Layer, Option, Redacted } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as NodeCrypto from "node:crypto"

/** The standalone server's settings, from the environment (see README "Configuration"). */
export interface ServerSettings {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  /** The address clients (and telephony providers) reach this server at; used in links and callbacks. */
  readonly publicUrl: string
  readonly version: string
  /** Encrypts stored provider credentials and signs public links. */
  readonly secretKey: Redacted.Redacted<string>
  /** Lifetime of signed public links to run artifacts (`AGENTLINE_PUBLIC_LINK_TTL_SECONDS`). */
  readonly publicLinkTtlSeconds: number
  /** How long a campaign stays owned by a process that stopped heartbeating (`AGENTLINE_DISPATCHER_LEASE_SECONDS`). */
  readonly dispatcherLeaseSeconds?: number
  /** Dispatcher timers (tests lengthen them: starts and call ends signal the dispatcher anyway). */
  readonly dispatcherAcquireIntervalMillis?: number
  readonly dispatcherRecheckMillis?: number
  readonly dispatcherSweepIntervalMillis?: number
  /**
   * Added to an agent's longest call before the provider is asked about a call that has not ended
   * (`AGENTLINE_DISPATCHER_RECONCILE_MARGIN_SECONDS`, default 60).
   */
  readonly dispatcherReconcileMarginSeconds?: number
  /** On SIGTERM, how long calls in progress may take to end (`AGENTLINE_DISPATCHER_DRAIN_SECONDS`, default 10). */
  readonly dispatcherDrainSeconds?: number
  /** Largest contacts upload, bytes (`AGENTLINE_MAX_UPLOAD_BYTES`, default 100 MiB). */
  readonly maxUploadBytes: number
  /** Lifetime of presigned upload URLs, seconds (`AGENTLINE_UPLOAD_URL_TTL_SECONDS`, default 900). */
  readonly uploadUrlTtlSeconds: number
  /** Telephony adapters added to the first-party ones and the simulator; one named like a built-in provider replaces it. */
  readonly telephonyProviders?: ReadonlyArray<TelephonyProvider>
  /**
   * What serves answered calls' audio instead of the voice runtime (an embedding application's own
   * handler; `CallAudioHandler.silent` keeps the line open and silent).
   */
  readonly callAudioHandler?: CallAudioHandlerShape
  /**
   * The voice runtime's speech and language services; default: chosen from `AGENTLINE_LLM`,
   * `AGENTLINE_STT` and `AGENTLINE_TTS` (docs/voice.md).
   */
  readonly voiceServices?: Layer.Layer<SpeechToText | TextToSpeech | AgentLanguageModel, ConfigError.ConfigError>
  /**
   * What tells the caller's speech from silence and noise (turn-taking, barge-in); default: chosen from
   * `AGENTLINE_VAD` (`silero`, the default, or `energy`; docs/voice.md).
   */
  readonly voiceActivity?: Layer.Layer<VoiceActivity, ConfigError.ConfigError>
  /**
   * How many reverse proxies in front of the server append to `X-Forwarded-For`
   * (`AGENTLINE_TRUSTED_PROXY_HOPS`, default 0: the header is ignored and the socket address counts).
   */
  readonly trustedProxyHops?: number
  /** Failed password attempts allowed per account / per client address in 15 minutes (docs/security.md). */
  readonly loginMaxFailuresPerAccount?: number
  readonly loginMaxFailuresPerAddress?: number
  /**
   * Event webhooks: whether endpoints may be private, loopback or link-local addresses
   * (`AGENTLINE_WEBHOOK_ALLOW_PRIVATE`, default false), and, for tests and embedding, the delivery
   * worker's timings (docs/webhooks.md).
   */
  readonly webhooks?: Partial<WebhookOptions>
  /**
   * Serve the web dashboard at `/` (`AGENTLINE_DASHBOARD`, default true for `agentline serve`; off
   * unless set when embedding). docs/dashboard.md.
   */
  readonly dashboard?: boolean
}

/** Defaults of `maxUploadBytes` and `uploadUrlTtlSeconds`, shared by the environment and embedding. */
export const DEFAULT_MAX_UPLOAD_BYTES = 100 * 1024 * 1024
export const DEFAULT_UPLOAD_URL_TTL_SECONDS = 900

export class ServerConfig extends Context.Tag("@agentline/http/ServerConfig")<ServerConfig, ServerSettings>() {
  static layer = (settings: ServerSettings) => Layer.succeed(ServerConfig, settings)
}

export const VERSION: string = JSON.parse(
  NodeFs.readFileSync(new URL("../package.json", import.meta.url), "utf8")
).version

export const settingsConfig: Effect.Effect<ServerSettings, ConfigError.ConfigError> = Effect.gen(function*() {
  const {
    dashboard,
    dataDir,
    dispatcherDrainSeconds,
    dispatcherLeaseSeconds,
    dispatcherReconcileMarginSeconds,
    host,
    loginMaxFailuresPerAccount,
    loginMaxFailuresPerAddress,
    maxUploadBytes,
    port,
    publicLinkTtlSeconds,
    publicUrl,
    trustedProxyHops,
    uploadUrlTtlSeconds,
    webhookAllowPrivate
  } = yield* Config.all({
    webhookAllowPrivate: Config.boolean("AGENTLINE_WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
    dashboard: Config.boolean("AGENTLINE_DASHBOARD").pipe(Config.withDefault(true)),
    maxUploadBytes: Config.integer("AGENTLINE_MAX_UPLOAD_BYTES").pipe(
      Config.validate({ message: "must be a positive number of bytes", validation: (n) => n > 0 }),
      Config.withDefault(DEFAULT_MAX_UPLOAD_BYTES)
    ),
    uploadUrlTtlSeconds: Config.integer("AGENTLINE_UPLOAD_URL_TTL_SECONDS").pipe(
      Config.validate({ message: "must be between 10 and 86400 seconds", validation: (n) => n >= 10 && n <= 86400 }),
      Config.withDefault(DEFAULT_UPLOAD_URL_TTL_SECONDS)
    ),
    port: Config.port("PORT").pipe(Config.withDefault(8000)),
    host: Config.string("HOST").pipe(Config.withDefault("0.0.0.0")),
    dataDir: Config.string("AGENTLINE_DATA_DIR").pipe(Config.withDefault("./data")),
    publicUrl: Config.option(Config.url("AGENTLINE_PUBLIC_URL")),
    dispatcherLeaseSeconds: Config.integer("AGENTLINE_DISPATCHER_LEASE_SECONDS").pipe(
      Config.validate({ message: "must be between 1 and 300 seconds", validation: (n) => n >= 1 && n <= 300 }),
      Config.withDefault(15)
    ),
    dispatcherReconcileMarginSeconds: Config.integer("AGENTLINE_DISPATCHER_RECONCILE_MARGIN_SECONDS").pipe(
      Config.validate({ message: "must be between 1 and 3600 seconds", validation: (n) => n >= 1 && n <= 3600 }),
      Config.withDefault(60)
    ),
    dispatcherDrainSeconds: Config.integer("AGENTLINE_DISPATCHER_DRAIN_SECONDS").pipe(
      Config.validate({ message: "must be between 0 and 600 seconds", validation: (n) => n >= 0 && n <= 600 }),
      Config.withDefault(10)
    ),
    publicLinkTtlSeconds: Config.integer("AGENTLINE_PUBLIC_LINK_TTL_SECONDS").pipe(
      Config.validate({ message: "must be between 60 and 604800 seconds", validation: (n) => n >= 60 && n <= 604800 }),
      Config.withDefault(3600)
    ),
    trustedProxyHops: Config.integer("AGENTLINE_TRUSTED_PROXY_HOPS").pipe(
      Config.validate({ message: "must be between 0 and 10 proxies", validation: (n) => n >= 0 && n <= 10 }),
      Config.withDefault(0)
    ),
    loginMaxFailuresPerAccount: Config.integer("AGENTLINE_LOGIN_MAX_FAILURES_PER_ACCOUNT").pipe(
      Config.validate({ message: "must be between 1 and 1000", validation: (n) => n >= 1 && n <= 1000 }),
      Config.withDefault(LoginThrottle.defaultPolicy.maxFailuresPerAccount)
    ),
    loginMaxFailuresPerAddress: Config.integer("AGENTLINE_LOGIN_MAX_FAILURES_PER_ADDRESS").pipe(
      Config.validate({ message: "must be between 1 and 100000", validation: (n) => n >= 1 && n <= 100000 }),
      Config.withDefault(LoginThrottle.defaultPolicy.maxFailuresPerAddress)
    )
  })
  return {
    port,
    host,
    dataDir,
    publicUrl: Option.match(publicUrl, {
      onNone: () => `http://localhost:${port}`,
      onSome: (url) => url.toString().replace(/\/$/, "")
    }),
    version: VERSION,
    secretKey: yield* secretKey(dataDir),
    publicLinkTtlSeconds,
    dispatcherLeaseSeconds,
    dispatcherReconcileMarginSeconds,
    dispatcherDrainSeconds,
    maxUploadBytes,
    uploadUrlTtlSeconds,
    trustedProxyHops,
    loginMaxFailuresPerAccount,
    loginMaxFailuresPerAddress,
    webhooks: { allowPrivate: webhookAllowPrivate },
    dashboard
  }
})

/**
 * The secret that encrypts stored provider credentials: `AGENTLINE_SECRET_KEY`, or a key generated
 * into the data directory on first start (with a warning: losing that file makes stored credentials
 * unreadable, so operators should set the variable and back it up).
 */
export const secretKey = (dataDir: string): Effect.Effect<Redacted.Redacted<string>> =>
  Effect.gen(function*() {
    const fromEnv = yield* Config.option(Config.redacted("AGENTLINE_SECRET_KEY")).pipe(Effect.orDie)
    if (Option.isSome(fromEnv)) return fromEnv.value
    const file = NodePath.join(dataDir, "secret.key")
    if (NodeFs.existsSync(file)) return Redacted.make(NodeFs.readFileSync(file, "utf8").trim())
    NodeFs.mkdirSync(dataDir, { recursive: true })
    const key = NodeCrypto.randomBytes(32).toString("base64url")
    NodeFs.writeFileSync(file, key + "\n", { mode: 0o600 })
    yield* Effect.logWarning(
      `AGENTLINE_SECRET_KEY is not set: generated one into ${file}. Set AGENTLINE_SECRET_KEY (and keep a copy) ` +
        `in production; without this key stored provider credentials cannot be decrypted.`
    )
    return Redacted.make(key)
  })
