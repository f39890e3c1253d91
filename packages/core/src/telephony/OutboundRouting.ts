/**
 * Which telephony configuration, provider and caller ids an outbound call goes through. Implemented
 * by the telephony configurations service (decrypting the stored credentials); the dispatcher and the
 * campaign service only see this, with the configuration's calls already bound to its credentials.
 */
import { Context, Effect, Schedule } from "effect"
import type { NoOutboundRoute, TelephonyProviderUnavailable } from "./Errors.js"
import type { PublicUrlsShape } from "../PublicUrls.js"
import { type CallEvent, type CallInstruction, type CallStatus, TelephonyError, type TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"

/** A configuration's calls, its credentials and this server's URLs filled in. */
export interface RouteCalls {
  readonly place: (input: {
    readonly to: string
    readonly from: string | undefined
    readonly attemptId: number
    readonly onEvent: (event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>
  }) => Effect.Effect<{ readonly providerCallId: string }, TelephonyError>
  readonly hangUp: (providerCallId: string) => Effect.Effect<void, TelephonyError>
  readonly get: (providerCallId: string) => Effect.Effect<CallStatus>
  /** What the provider should do once the attempt's call is answered (a markup provider asks then). */
  readonly whenAnswered: (attemptId: number) => Effect.Effect<AnswerInstruction>
}

/** An instruction for an answered call of ours: we never refuse our own call up front. */
export type AnswerInstruction = Exclude<CallInstruction, { readonly _tag: "Reject" }>

export interface OutboundRoute {
  readonly configurationId: number
  readonly configurationName: string
  readonly provider: TelephonyProvider
  /** The decoded, decrypted provider config (for its webhooks). Never log it. */
  readonly config: unknown
  readonly calls: RouteCalls
  /** The configuration's default caller id (normalized), if one is set. */
  readonly defaultCallerId: string | null
  /** Its active numbers (normalized), rotated through when there is no default. */
  readonly callerIds: ReadonlyArray<string>
}

/** How often a transient provider failure (429, 5xx, unreachable) is tried again, and how long apart. */
export const PROVIDER_RETRIES = 3
const retrySchedule = Schedule.exponential("250 millis").pipe(Schedule.intersect(Schedule.recurs(PROVIDER_RETRIES)))

/**
 * A provider request tried again on transient failures (the adapter's `retryable`), with backoff, a
 * bounded number of times; the last failure says how many tries it took.
 */
export const withRetries = <A>(request: Effect.Effect<A, TelephonyError>): Effect.Effect<A, TelephonyError> =>
  request.pipe(
    Effect.retry({ schedule: retrySchedule, while: (e) => e.retryable }),
    Effect.mapError((e) => (e.retryable ? new TelephonyError({ ...e, message: `${e.message} (gave up after ${PROVIDER_RETRIES + 1} tries)` }) : e))
  )

/**
 * What an answered call of an attempt is told: connect to the media route with a fresh token, or, without
 * a media route or a provider that cannot stream, stay up, silent.
 */
export const answerInstruction = (
  provider: Pick<TelephonyProvider<unknown>, "name" | "media">,
  urls: PublicUrlsShape,
  mediaToken: ((attemptId: number) => Effect.Effect<string>) | undefined
) =>
(attemptId: number): Effect.Effect<AnswerInstruction> => {
  const mediaStream = urls.mediaStream
  return mediaStream === undefined || mediaToken === undefined || provider.media === undefined
    ? Effect.succeed({ _tag: "KeepOpen" })
    : Effect.map(mediaToken(attemptId), (token) => ({
      _tag: "ConnectMediaStream",
      url: mediaStream({ provider: provider.name, token }),
      parameters: { attempt_id: String(attemptId) }
    }))
}

/**
 * `provider`'s calls bound to a decoded `config`. A provider without calls (configuration only) is
 * refused with a non-retryable error (retrying cannot help) and its calls' fate is Unknown, so an
 * attempt is never re-dialed on a guess.
 */
export const bindCalls = <Config>(
  provider: TelephonyProvider<Config>,
  config: Config,
  urls: PublicUrlsShape,
  /** Opens the configuration's connection if the provider keeps one (`connect`), before any call. */
  connected: Effect.Effect<void, TelephonyError> = Effect.void,
  /** A new single-use token for the media stream URL of an attempt (`MediaTokens.issue`). */
  mediaToken?: (attemptId: number) => Effect.Effect<string>
): RouteCalls => {
  const whenAnswered = answerInstruction(provider, urls, mediaToken)
  const calls = provider.calls
  if (calls === undefined) {
    const refused = Effect.fail(
      new TelephonyError({
        provider: provider.name,
        message: `outbound calling through ${provider.name} is not available in this build: the adapter implements configuration only`,
        retryable: false
      })
    )
    return {
      place: () => refused,
      hangUp: () => refused,
      get: () => Effect.succeed({ _tag: "Unknown", reason: `${provider.name} calls cannot be queried: the adapter implements configuration only` }),
      whenAnswered
    }
  }
  return {
    place: ({ attemptId, from, onEvent, to }) =>
      Effect.zipRight(
        connected,
        Effect.flatMap(whenAnswered(attemptId), (instruction) =>
          withRetries(calls.place({
            config,
            to,
            from,
            attemptId,
            onEvent,
            callbackUrl: urls.telephonyCallback({ provider: provider.name, attemptId }),
            answerUrl: urls.telephonyAnswer({ provider: provider.name, attemptId }),
            whenAnswered: instruction
          })))
      ),
    hangUp: (providerCallId) => Effect.zipRight(connected, withRetries(calls.hangUp({ config, providerCallId }))),
    // Without its connection the provider cannot tell: Unknown, never a guess.
    get: (providerCallId) =>
      Effect.matchEffect(connected, {
        onFailure: (e) => Effect.succeed({ _tag: "Unknown", reason: `${provider.name} is not reachable: ${e.message}` } as const),
        onSuccess: () => calls.get({ config, providerCallId })
      }),
    whenAnswered
  }
}

export class OutboundRouting extends Context.Tag("@agentline/core/OutboundRouting")<
  OutboundRouting,
  {
    /**
     * The configuration with this id in the organization, or the organization's default outbound
     * configuration when `configurationId` is null. Fails with `NoOutboundRoute` when there is none, or
     * the id is not the organization's.
     */
    readonly resolve: (
      organizationId: number,
      configurationId: number | null
    ) => Effect.Effect<OutboundRoute, NoOutboundRoute | TelephonyProviderUnavailable>
  }
>() {}
