/**
 * The telephony provider port: what Agentline needs from a carrier, and nothing more.
 *
 * A provider is a plain value implementing `TelephonyProvider`. First-party and third-party adapters
 * plug in the same way: put the value in the `TelephonyRegistry` when the application is composed
 * (see `docs/telephony-adapters.md`). Everything provider-specific — credentials, wire formats,
 * status names, signatures — stays inside the adapter; the rest of the system sees normalized
 * `CallEvent`s and `CallOutcome`s only.
 */
import { Context, Data, Effect, Layer, Option, Schema } from "effect"

/** The final result of one call attempt, the same for every provider. */
export const CallOutcome = Schema.Literal("completed", "busy", "no_answer", "voicemail", "failed", "canceled")
export type CallOutcome = typeof CallOutcome.Type

/**
 * A normalized call event. Adapters must emit exactly one `ended` event per call, and tolerate
 * duplicate or out-of-order provider callbacks (the consumer ignores events after `ended`).
 */
export type CallEvent =
  | {
    readonly type: "initiated" | "ringing" | "answered"
    readonly providerCallId: string
    /** epoch milliseconds */
    readonly at: number
    readonly raw?: unknown
  }
  | {
    readonly type: "ended"
    readonly providerCallId: string
    readonly at: number
    readonly outcome: CallOutcome
    /** Seconds from answer to hang-up; 0 when the call was never answered. */
    readonly durationSeconds: number
    /** The provider's own cause (Q.850 text, SIP code, status string), for the run's logs. */
    readonly hangupCause?: string
    readonly raw?: unknown
  }

/** What a provider knows about a call it placed, used to reconcile attempts after a crash. */
export type CallStatus =
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Ended"; readonly outcome: CallOutcome; readonly durationSeconds: number }
  /** The provider cannot tell (no such call, no API for it, unreachable). Never re-dial on this. */
  | { readonly _tag: "Unknown"; readonly reason: string }

/** A field of a provider's configuration, as the metadata endpoint lists it. */
export interface ProviderField {
  readonly name: string
  readonly label: string
  readonly type: "text" | "password" | "textarea" | "string-array" | "number" | "boolean" | "select" | "readonly" | "json"
  readonly required: boolean
  readonly sensitive: boolean
  readonly description?: string
  readonly options?: ReadonlyArray<{ readonly value: string; readonly label: string }>
}

/** A provider's HTTP callback as it reached the server (exact public URL: signatures cover it). */
export interface WebhookRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly rawBody: Uint8Array
}

export interface PlaceCallInput<Config> {
  readonly config: Config
  /** The dialed address, already normalized (E.164 for `pstn`, a SIP URI or an extension). */
  readonly to: string
  /** The caller id, normalized; absent when the configuration has no number (ARI can dial without one). */
  readonly from: string | undefined
  /** Our id for the attempt (the run id), echoed in callbacks so events find their run. */
  readonly correlationId: string
  /** Where the provider should send status callbacks for this call. */
  readonly callbackUrl: string
  /**
   * Delivers events for providers that learn of them in-process (the simulator, a WebSocket event
   * stream). HTTP-callback providers ignore it: their events arrive through `parseCallback`.
   */
  readonly onEvent: (event: CallEvent) => Effect.Effect<void>
}

export interface ProviderSync {
  readonly ok: boolean
  readonly message: string
}

/** A provider failed or refused a request. `retryable` is the adapter's opinion on a transient fault. */
export class TelephonyError extends Data.TaggedError("TelephonyError")<{
  readonly provider: string
  readonly message: string
  readonly retryable: boolean
  readonly cause?: unknown
}> {}

export interface TelephonyProvider<Config = any> {
  /** The `provider` discriminator value, e.g. `twilio`; also the run's `mode`. */
  readonly name: string
  readonly displayName: string
  /** Decodes the stored/submitted credentials object (without the `provider` key). */
  readonly configSchema: Schema.Schema<Config, any>
  /** Every field of the config, with which are required and which are sensitive (encrypted, masked). */
  readonly fields: ReadonlyArray<ProviderField>
  /** The account id used for inbound routing: (provider, account id, address) is globally unique. */
  readonly accountId: (config: Config) => string | undefined
  readonly placeCall: (input: PlaceCallInput<Config>) => Effect.Effect<{ readonly providerCallId: string }, TelephonyError>
  readonly hangup: (input: { readonly config: Config; readonly providerCallId: string }) => Effect.Effect<void, TelephonyError>
  readonly getCall: (input: { readonly config: Config; readonly providerCallId: string }) => Effect.Effect<CallStatus>
  /** Turns a provider callback into normalized events. Call `verifySignature` first. */
  readonly parseCallback: (
    input: { readonly config: Config; readonly request: WebhookRequest }
  ) => Effect.Effect<ReadonlyArray<CallEvent>, TelephonyError>
  readonly verifySignature: (input: { readonly config: Config; readonly request: WebhookRequest }) => Effect.Effect<boolean>
  /** Points the number's inbound webhook at `webhookUrl`, or removes it when `null`. Never fails: reports. */
  readonly configureInbound: (
    input: { readonly config: Config; readonly address: string; readonly webhookUrl: string | null }
  ) => Effect.Effect<ProviderSync>
  /** Whether the account owns the number, where the provider can tell (`undefined`: cannot tell). */
  readonly checkOwnership: (input: { readonly config: Config; readonly address: string }) => Effect.Effect<boolean | undefined>
}

/** The providers this application knows, keyed by name. Composed once at the edge. */
export class TelephonyRegistry extends Context.Tag("@agentline/core/TelephonyRegistry")<
  TelephonyRegistry,
  {
    readonly get: (name: string) => Option.Option<TelephonyProvider>
    readonly all: ReadonlyArray<TelephonyProvider>
  }
>() {
  static make(providers: ReadonlyArray<TelephonyProvider>): TelephonyRegistry["Type"] {
    const byName = new Map<string, TelephonyProvider>()
    for (const provider of providers) {
      if (byName.has(provider.name)) throw new Error(`Two telephony providers are named "${provider.name}"`)
      byName.set(provider.name, provider)
    }
    const all = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name))
    return { get: (name) => Option.fromNullable(byName.get(name)), all }
  }
  static layer(providers: ReadonlyArray<TelephonyProvider>): Layer.Layer<TelephonyRegistry> {
    return Layer.sync(TelephonyRegistry, () => TelephonyRegistry.make(providers))
  }
}
