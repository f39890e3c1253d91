/**
 * Asterisk ARI as a telephony provider. ARI is call control without HTTP callbacks: a call is
 * originated into the configuration's Stasis application (`POST /ari/channels`), and everything that
 * happens to it arrives over the application's events WebSocket (`connect`), which reaches the
 * dispatcher through the call's `onEvent`:
 *
 * - `ChannelStateChange` to `Ringing` is `ringing`; the channel entering Stasis (`StasisStart`, it
 *   answered) is `answered`; `ChannelDestroyed` is the end, its Q.850 `cause` giving the outcome of an
 *   unanswered call (`AriCalls.unansweredOutcome`), an answered one being `completed` with the seconds
 *   between the two events' timestamps;
 * - once answered, the call's audio is connected as `whenAnswered` says: an externalMedia channel over
 *   chan_websocket (`transport=websocket`, `encapsulation=none`, `external_host=<ws_client_name>`,
 *   `format=ulaw`, the media token in `transport_data=v(token=...)`), which dials this server's media
 *   route, and a mixing bridge with both channels (`AriMedia` is the codec of that WebSocket);
 * - `hangUp` is `DELETE /ari/channels/{id}` (a call already gone is fine); `get` asks Asterisk for the
 *   channel (alive: in progress) and otherwise answers from what this process saw end; ARI keeps no
 *   record of ended calls, so after a restart an unknown channel is `Unknown`, never a guess.
 *
 * ARI has no HTTP callbacks: `webhooks.verify` refuses every HTTP request that claims to be one.
 *
 * Several processes of one deployment: one holds the application's events WebSocket (the application
 * leases it, see core's `ProviderConnections`); the others originate and hang up over REST, and the holder serves
 * their calls' events and media (`ConnectContext.adopt`), recognizing them by their channel ids.
 */
import type { CallStatus, ProviderSync, TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"
import { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { Clock, Effect, Either } from "effect"
import * as AriApplication from "./AriApplication.js"
import { appArgs, DEFAULT_DIAL_STRING, dialString } from "./AriCalls.js"
import * as AriChannels from "./AriChannels.js"
import { accountId, type AriConfig, configuration } from "./AriConfig.js"
import * as AriInbound from "./AriInbound.js"
import { media } from "./AriMedia.js"
import * as AriRest from "./AriRest.js"

export * from "./AriConfig.js"
export * as Calls from "./AriCalls.js"
export * as Media from "./AriMedia.js"
export * as Events from "./AriEvents.js"
export * as Inbound from "./AriInbound.js"

/** How long an outbound channel rings before Asterisk gives up (the originate `timeout`). */
export const RING_TIMEOUT_SECONDS = 60

export type AriProvider = TelephonyProvider<AriConfig>

/** The adapter; `apiUrl` replaces every configuration's `ari_endpoint` (tests; see `AGENTLINE_ARI_URL`). */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): AriProvider => {
  const rest = AriRest.make(options)
  const send = rest.send
  const channels = AriChannels.make(send)
  const application = AriApplication.make({ channels, rest, apiUrl: options.apiUrl })

  /**
   * Asterisk has no per-number webhook: its dialplan sends calls to `Stasis(<app>)`. Binding a number
   * checks that Asterisk knows the application (it does while this server holds its events
   * WebSocket) and says what the dialplan needs; unbinding changes nothing there.
   */
  const configure: NonNullable<AriProvider["inbound"]>["configure"] = ({ address, config, webhookUrl }) =>
    Effect.gen(function*() {
      if (webhookUrl === null) {
        return { ok: true, message: `nothing to clear on Asterisk: its dialplan decides where ${address} goes` } satisfies ProviderSync
      }
      const found = yield* send({ config, method: "GET", path: `/applications/${encodeURIComponent(config.app_name)}`, what: "look the application up" })
      if (Either.isLeft(found)) {
        return {
          ok: false,
          message: found.left.status === 404
            ? `Asterisk does not know the Stasis application ${config.app_name} yet (it is registered while this server holds its events WebSocket)`
            : AriRest.failure(found.left, "look the application up").message
        } satisfies ProviderSync
      }
      return {
        ok: true,
        message: `Asterisk hears the Stasis application ${config.app_name}: its dialplan must send ${address} to Stasis(${config.app_name})`
      } satisfies ProviderSync
    }).pipe(Effect.catchAll((e) => Effect.succeed({ ok: false, message: e.message } satisfies ProviderSync)))

  const place: NonNullable<AriProvider["calls"]>["place"] = (input) =>
    Effect.gen(function*() {
      const { config } = input
      const endpoint = dialString(config.dial_string === "" ? DEFAULT_DIAL_STRING : config.dial_string, input.to)
      if (endpoint === undefined) {
        return yield* new TelephonyError({ provider: "ari", message: `${input.to} cannot be dialed through Asterisk: it is not a dialable address`, retryable: false })
      }
      // Chosen by us so the call is known before Asterisk answers (its events may come before the
      // reply), and the same for every try of this attempt: Asterisk refuses a second channel with the
      // id (409), so a retried request whose first try got through does not dial twice.
      const channelId = `agentline-${channels.instance}-${input.attemptId}`
      channels.track(AriChannels.newCall({ channelId, config, attemptId: input.attemptId, onEvent: input.onEvent, whenAnswered: input.whenAnswered }))
      const placed = yield* send({
        config,
        method: "POST",
        path: "/channels",
        query: {
          endpoint,
          app: config.app_name,
          appArgs: appArgs(input.attemptId),
          channelId,
          callerId: input.from,
          timeout: String(RING_TIMEOUT_SECONDS)
        },
        what: `dial ${input.to}`
      }).pipe(Effect.tapError(() => Effect.sync(() => channels.drop(channelId))))
      // 409: an earlier try of this attempt created the channel; it is the call.
      if (Either.isLeft(placed) && placed.left.status !== 409) {
        channels.drop(channelId)
        // Asterisk answers 500 "Allocation failed" when it cannot make the channel at all (no such
        // endpoint or trunk, a technology it lacks): the dial string is wrong, trying again cannot help.
        if (placed.left.status === 500 && placed.left.message === "Allocation failed") {
          return yield* new TelephonyError({
            provider: "ari",
            message: `Asterisk could not create a channel to dial ${input.to} (${endpoint}): no such endpoint or trunk; check the dial string (HTTP 500 Allocation failed)`,
            retryable: false
          })
        }
        return yield* AriRest.failure(placed.left, `dial ${input.to} (${endpoint})`)
      }
      yield* input.onEvent({ type: "initiated", providerCallId: channelId, at: yield* Clock.currentTimeMillis }, AriChannels.durable)
      return { providerCallId: channelId }
    })

  const hangUp: NonNullable<AriProvider["calls"]>["hangUp"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const call = channels.call(providerCallId)
      if (call !== undefined && call.answeredAt === undefined && call.ended === undefined) call.canceledByUs = true
      const deleted = yield* send({
        config,
        method: "DELETE",
        path: `/channels/${encodeURIComponent(providerCallId)}`,
        query: { reason: "normal" },
        what: "hang up the call"
      })
      // 404: the channel is gone already, which is what a hang-up wants.
      if (Either.isLeft(deleted) && deleted.left.status !== 404) return yield* AriRest.failure(deleted.left, "hang up the call")
    })

  const get: NonNullable<AriProvider["calls"]>["get"] = ({ config, providerCallId }) =>
    Effect.gen(function*() {
      const known = channels.call(providerCallId)?.ended
      if (known !== undefined) {
        return { _tag: "Ended", outcome: known.outcome.outcome, durationSeconds: known.outcome.durationSeconds } satisfies CallStatus
      }
      const found = yield* send({ config, method: "GET", path: `/channels/${encodeURIComponent(providerCallId)}`, what: "look the call up" })
      if (Either.isRight(found)) return { _tag: "InProgress" } satisfies CallStatus
      return {
        _tag: "Unknown",
        reason: found.left.status === 404
          ? `Asterisk has no channel ${providerCallId} any more, and ARI keeps no record of ended calls`
          : AriRest.failure(found.left, "look the call up").message
      } satisfies CallStatus
    }).pipe(Effect.catchAll((e) => Effect.succeed({ _tag: "Unknown", reason: e.message } satisfies CallStatus)))

  const noCallbacks = new TelephonyError({ provider: "ari", message: "Asterisk ARI sends no HTTP callbacks: its events come over the events WebSocket", retryable: false })

  return {
    ...configuration,
    calls: { place, hangUp, get },
    connectionKey: accountId,
    webhooks: {
      // Only the adapter's own in-process requests carry the MAC; ARI never posts callbacks.
      verify: ({ config, request }) => Effect.sync(() => AriInbound.verify(config, request)),
      parseStatus: () => Effect.fail(noCallbacks),
      parseInbound: ({ request }) => Effect.try({ try: () => AriInbound.parse(request), catch: (e) => e instanceof TelephonyError ? e : noCallbacks }),
      // Asterisk reads no document: `instructCall` acts on the channel.
      answer: ({ instruction }) => ({ status: 200, contentType: "application/json", body: JSON.stringify({ instruction: instruction._tag }) }),
      instructCall: application.instructCall
    },
    media,
    inbound: { configure },
    connect: application.connect
  }
}

/** The adapter the server registers: each configuration's own Asterisk (`AGENTLINE_ARI_URL` for tests). */
export const provider: AriProvider = make()
