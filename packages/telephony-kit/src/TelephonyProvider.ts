/**
 * The telephony provider port: what Agentline needs from a carrier, split by what real carriers do.
 *
 * A provider is a plain value. Besides its configuration (schema, fields, routing key) it offers the
 * parts it supports, each optional so an adapter implements exactly what its carrier has:
 *
 * - `calls`: place a call (saying what to do once it is answered), hang it up, ask how it went;
 * - `webhooks`: verify a provider's HTTP request, turn status callbacks into normalized events and an
 *   inbound call into its routing key, and write the provider's answer document (TwiML, NCCO, XML);
 * - `media`: a codec between the provider's media-stream WebSocket frames and normalized audio + control;
 * - `inbound`: point a number's voice webhook at this server, or clear it;
 * - `connect`: what one configuration keeps open while in use (ARI's events WebSocket).
 *
 * A configuration-only adapter has none of them; asking it to call fails with a clear message. Every
 * method returns an `Effect` with no requirements: an adapter needing services takes them when it
 * is made. Everything provider-specific stays inside the adapter; the rest of the system sees the
 * normalized types below. See `docs/telephony-adapters.md`.
 *
 * This is the package a third-party adapter depends on (`@agentline/telephony-kit`); Agentline's core
 * uses the same definitions.
 */
import { type Effect, type Option, Schema, type Scope } from "effect"
import type { ProviderMedia } from "./Media.js"
import type { TransferCall, TransferCapabilities, TransferResult } from "./Transfer.js"

// ------------------------------------------------------------------------------ normalized call facts

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
    /**
     * On `answered`, when the provider ran answering machine detection: who picked up. A machine's
     * call is not for a voice agent (the server hangs it up); its end is reported as `voicemail`.
     */
    readonly answeredBy?: AnsweredBy
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
  }

/** Who answered a call, as answering machine detection tells it. */
export type AnsweredBy = "human" | "machine" | "fax" | "unknown"

/** What a provider knows about a call it placed, used to reconcile attempts after a crash. */
export type CallStatus =
  | { readonly _tag: "InProgress" }
  | { readonly _tag: "Ended"; readonly outcome: CallOutcome; readonly durationSeconds: number }
  /** The provider cannot tell (no such call, no API for it, unreachable). Never re-dial on this. */
  | { readonly _tag: "Unknown"; readonly reason: string }

/**
 * A provider failed or refused a request. `retryable` is the adapter's opinion on a transient fault:
 * true when the same request may succeed later (timeouts, connection errors, 429, 5xx), false when the
 * provider refused it. `message` is for people: the provider's own words, never its credentials.
 */
export class TelephonyError extends Schema.TaggedError<TelephonyError>()("TelephonyError", {
  provider: Schema.String,
  message: Schema.String,
  retryable: Schema.Boolean,
  cause: Schema.optional(Schema.Unknown)
}) {}

// ---------------------------------------------------------------------------------------------- calls

/**
 * What the provider should do with a call once it is answered (or with an inbound call it asks
 * about). `ConnectMediaStream`: stream the call's audio both ways over a WebSocket to `url`, passing
 * `parameters` along (the stream's start message carries them back). `KeepOpen`: no voice runtime
 * serves this call; keep it up, silent, until either side hangs up. `Reject`: refuse or end the call.
 */
export type CallInstruction =
  | {
    readonly _tag: "ConnectMediaStream"
    readonly url: string
    readonly parameters: Readonly<Record<string, string>>
  }
  | { readonly _tag: "KeepOpen" }
  /**
   * `reason` is said to the caller before hanging up (empty: hang up without a word). `busy`: the
   * line is busy (the organization is at its concurrency limit): the provider's busy signal instead,
   * where it has one.
   */
  | { readonly _tag: "Reject"; readonly reason: string; readonly busy?: boolean }

export interface PlaceCall<Config> {
  readonly config: Config
  /** The dialed address, already normalized (E.164 for `pstn`, a SIP URI or an extension). */
  readonly to: string
  /** The caller id, normalized; absent when the configuration has no number (ARI can dial without one). */
  readonly from: string | undefined
  /**
   * Our id of this call attempt (not the run: a run's retries are several attempts). Echoed in
   * callbacks so events find their attempt; also a good idempotency key for the provider's API.
   */
  readonly attemptId: number
  /** Where the provider should send status callbacks for this call. */
  readonly callbackUrl: string
  /**
   * Where a markup provider (TwiML, Plivo XML, ...) fetches what to do once the call is answered: this
   * server answers there with `whenAnswered`, after verifying the request. Providers that take the
   * instruction inline when the call is placed (Telnyx `stream_url`) use `whenAnswered` directly.
   */
  readonly answerUrl: string
  readonly whenAnswered: Exclude<CallInstruction, { readonly _tag: "Reject" }>
  /**
   * Delivers events for providers that learn of them in-process (the simulator, a WebSocket event
   * stream). HTTP-callback providers ignore it: their events arrive through `webhooks.parseStatus`.
   * `durable`: the event is the provider's own report (ARI's events WebSocket), written to the run's
   * log at once as an HTTP callback is, so a process that dies mid-call loses none; without it (the
   * simulator) events are written with the call's end.
   */
  readonly onEvent: (event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>
}

export interface ProviderCalls<Config> {
  readonly place: (input: PlaceCall<Config>) => Effect.Effect<{ readonly providerCallId: string }, TelephonyError>
  /** Ends a call; ending one that is already over succeeds (the goal is reached). */
  readonly hangUp: (input: { readonly config: Config; readonly providerCallId: string }) => Effect.Effect<void, TelephonyError>
  readonly get: (input: { readonly config: Config; readonly providerCallId: string }) => Effect.Effect<CallStatus>
  /**
   * Hands an answered call to a person (`Transfer.ts`): the provider dials `target` and bridges the
   * caller; the result comes once, to `resultUrl` or `onResult`. Succeeds once the provider took the
   * request; a call that is over (or unknown) fails, not retryable. Not idempotent: the application
   * asks once per transfer and never retries it (a second request would dial the target twice).
   */
  readonly transfer?: (input: TransferCall<Config>) => Effect.Effect<void, TelephonyError>
}

// ------------------------------------------------------------------------------------------- webhooks

/**
 * A provider's HTTP request as it reached the server. `url` is the FULL public URL the provider
 * called, query included (`https://calls.example.com/callbacks/7?x=1`): signatures cover it.
 */
export interface WebhookRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly rawBody: Uint8Array
}

/** An answer to a provider's request, independent of any HTTP library. */
export interface WebhookResponse {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/** An inbound call as a provider announces it: enough to find the number it is for. */
export interface InboundCall {
  /** The account the call arrived on (the routing key's account id, see `accountId`). */
  readonly accountId: string
  /** The dialed address and the caller, as the provider wrote them (normalize before routing). */
  readonly to: string
  readonly from: string
  readonly providerCallId: string
}

export interface ProviderWebhooks<Config> {
  /** Whether the request really comes from the provider account of `config`. Never fails: false. */
  readonly verify: (input: { readonly config: Config; readonly request: WebhookRequest }) => Effect.Effect<boolean>
  /** A status callback as normalized events (none for statuses we ignore). Call `verify` first. */
  readonly parseStatus: (
    input: { readonly config: Config; readonly request: WebhookRequest }
  ) => Effect.Effect<ReadonlyArray<CallEvent>, TelephonyError>
  /** An inbound call's routing key. Unverified: verify with the configuration it routes to. */
  readonly parseInbound: (input: { readonly request: WebhookRequest }) => Effect.Effect<InboundCall, TelephonyError>
  /**
   * The provider's answer document for an instruction (TwiML, TeXML, Plivo XML, NCCO, ...). `config`
   * is absent when no configuration could be found for the request (an unknown number is rejected).
   */
  readonly answer: (input: { readonly config: Config | undefined; readonly instruction: CallInstruction }) => WebhookResponse
  /**
   * A transfer's result callback (posted to the transfer's `resultUrl`) as its result; `undefined` for
   * a progress report that is not the end (ringing). Call `verify` first.
   */
  readonly parseTransferResult?: (
    input: { readonly config: Config; readonly request: WebhookRequest }
  ) => Effect.Effect<TransferResult | undefined, TelephonyError>
  /**
   * The document answering a transfer's result callback, for markup providers whose call goes on by
   * it (Twilio's and Plivo's `<Dial action>`): an unanswered transfer ends the call. Default: 200, empty.
   * `request` and `config` (the request just verified and parsed, and its configuration) serve a
   * provider that fetches the transfer's own document from the result URL (Plivo's `aleg_url`).
   */
  readonly transferAnswer?: (input: {
    readonly result: TransferResult | undefined
    readonly request?: WebhookRequest | undefined
    readonly config?: Config | undefined
  }) => WebhookResponse
  /**
   * Call-control providers (Telnyx) ignore the body of the answer to their inbound webhook: a call is
   * answered (with its media stream), kept open or rejected by a command on the call. Where present,
   * the server runs it for an inbound call, with the configuration the call routed to, besides
   * replying with `answer`'s document. `callbackUrl`: where the call's later status callbacks go.
   * Without a configuration (an unknown number) no command can be sent: the provider gives up on
   * the call by itself.
   */
  readonly instructCall?: (input: {
    readonly config: Config
    readonly providerCallId: string
    readonly instruction: CallInstruction
    readonly callbackUrl?: string | undefined
    /**
     * For an accepted call, where its later events go when the provider reports them in-process
     * (ARI's events WebSocket), as `PlaceCall.onEvent`: the call's end finishes its attempt.
     */
    readonly onEvent?: ((event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>) | undefined
  }) => Effect.Effect<void, TelephonyError>
}

// -------------------------------------------------------------------------------------------- inbound

/** The outcome of pushing an inbound change to the provider; `ok: false` is a warning only. */
export interface ProviderSync {
  readonly ok: boolean
  readonly message: string
}

export interface ProviderInbound<Config> {
  /**
   * Points the number's voice webhook at `webhookUrl`, or clears it when `null`. Providers whose
   * webhook belongs to a shared application must not clear it for everyone. Never fails: reports.
   */
  readonly configure: (
    input: { readonly config: Config; readonly address: string; readonly webhookUrl: string | null }
  ) => Effect.Effect<ProviderSync>
}

// ------------------------------------------------------------------------------------------ the port

/** A field of a provider's configuration, as the metadata endpoint and the OpenAPI document list it. */
export interface ProviderField {
  readonly name: string
  readonly label: string
  readonly type: "text" | "password" | "textarea" | "string-array" | "number" | "boolean" | "select" | "readonly" | "json"
  readonly required: boolean
  readonly sensitive: boolean
  readonly description?: string
  readonly options?: ReadonlyArray<{ readonly value: string; readonly label: string }>
}

export interface TelephonyProvider<Config = any> {
  /** The `provider` discriminator value, e.g. `twilio`; also the run's `mode`. */
  readonly name: string
  readonly displayName: string
  /** Decodes the stored/submitted credentials object (without the `provider` key). */
  readonly configSchema: Schema.Schema<Config, any>
  /** Every field of the config, with which are required and which are sensitive (encrypted, masked). */
  readonly fields: ReadonlyArray<ProviderField>
  /**
   * The account id of the inbound routing key (provider, account id, address), unique across
   * organizations. `undefined` only when the configuration lacks an optional id the provider needs
   * to route inbound calls (Telnyx without a connection id).
   */
  readonly accountId: (config: Config) => string | undefined
  readonly calls?: ProviderCalls<Config>
  readonly webhooks?: ProviderWebhooks<Config>
  readonly media?: ProviderMedia
  readonly inbound?: ProviderInbound<Config>
  /** Which transfers `calls.transfer` does; absent: none (the application then refuses them). */
  readonly transfers?: TransferCapabilities
  /**
   * For an adapter without `transfers`: why, in words for the run's log (the carrier's API cannot
   * redirect a live call, say). The application records a refused transfer with it as the cause.
   */
  readonly noTransfers?: string
  /**
   * What one configuration keeps open while calls use it (ARI: one events WebSocket per
   * configuration), for as long as `Scope` is open. Events of calls placed meanwhile go to their
   * `onEvent`. The application opens it before the configuration's first call and keeps it open
   * until the configuration changes or the application stops.
   */
  readonly connect?: (config: Config, context?: ConnectContext) => Effect.Effect<void, TelephonyError, Scope.Scope>
  /**
   * What identifies the connection `connect` opens, when configurations can share one (ARI: one events
   * WebSocket per Asterisk box and application): one process of a deployment holds it, under one lease,
   * and serves the calls of every configuration that shares it. Without it, each configuration's own.
   */
  readonly connectionKey?: (config: Config) => string
  /**
   * Whether the provider accepts the configuration's credentials, asked with one cheap authenticated
   * request (`agentline doctor` runs it for every stored configuration). Never fails: reports.
   */
  readonly verifyCredentials?: (config: Config) => Effect.Effect<ProviderSync>
}

/** What the application gives a held connection (`connect`). */
export interface ConnectContext {
  /**
   * An incoming call the provider announced over the connection (ARI's `StasisStart`), as the
   * `WebhookRequest` of `webhooks.parseInbound` / `verify`: it takes the route of `POST
   * /api/v1/telephony/inbound/{provider}` (routing, verification, a run, `instructCall`). The answer
   * document comes back; `None` when this application has no inbound route.
   */
  readonly inbound: (request: WebhookRequest) => Effect.Effect<Option.Option<WebhookResponse>>
  /**
   * A call another process of this deployment placed (same database), heard over this process's
   * connection: only one process holds a configuration's connection (ARI: Asterisk gives an
   * application's events to one WebSocket), so it hears every process's calls. For an open attempt of
   * this provider, what its events go to (the attempt, through the dispatcher) and what its answer
   * does (a fresh media stream URL); `None` for anything else. Absent in an application without a
   * dispatcher.
   */
  readonly adopt?: (call: { readonly attemptId: number; readonly providerCallId: string }) => Effect.Effect<Option.Option<AdoptedCall>>
}

/** A call placed by another process, as the process holding the connection serves it (`adopt`). */
export interface AdoptedCall {
  readonly onEvent: (event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>
  readonly whenAnswered: Exclude<CallInstruction, { readonly _tag: "Reject" }>
}
