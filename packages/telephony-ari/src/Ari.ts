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
 * - `calls.transfer` (cold): the target dialed into the application, the agent's media leg hung up,
 *   the target bridged with the caller once it answers; the result from its channel's events,
 *   in-process (`Transfer.ts`).
 *
 * ARI has no HTTP callbacks: `webhooks.verify` refuses every HTTP request that claims to be one.
 *
 * Several processes of one deployment: one holds the application's events WebSocket (the application
 * leases it, see core's `ProviderConnections`); the others originate and hang up over REST, and the holder serves
 * their calls' events and media (`ConnectContext.adopt`), recognizing them by their channel ids.
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import { TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import type { HttpClient } from "@effect/platform"
import { Effect } from "effect"
import * as AriApplication from "./Application.js"
import * as Calls from "./Calls.js"
import * as AriChannels from "./Channels.js"
import { accountId, type AriConfig, configuration } from "./Config.js"
import * as AriInbound from "./Inbound.js"
import { media } from "./Media.js"
import * as Numbers from "./Numbers.js"
import * as AriRest from "./Rest.js"
import * as AriTransfer from "./Transfer.js"

export * from "./Config.js"
export * as Calls from "./Calls.js"
export * as Media from "./Media.js"
export * as Events from "./Events.js"
export * as Inbound from "./Inbound.js"
export * as Transfer from "./Transfer.js"

export type AriProvider = TelephonyProvider<AriConfig>

/**
 * The adapter over the context's `HttpClient`; `apiUrl` replaces every configuration's `ari_endpoint`
 * (tests; see `AGENTLINE_ARI_URL`).
 */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): Effect.Effect<AriProvider, never, HttpClient.HttpClient> =>
  Effect.map(AriRest.make(options), (rest): AriProvider => {
    const channels = AriChannels.make(rest.send)
    const application = AriApplication.make({ channels, rest, apiUrl: options.apiUrl })
    const noCallbacks = new TelephonyError({ provider: "ari", message: "Asterisk ARI sends no HTTP callbacks: its events come over the events WebSocket", retryable: false })
    return {
      ...configuration,
      calls: { ...Calls.make(rest.send, channels), transfer: AriTransfer.transfer({ send: rest.send, channels, hears: application.hears }) },
      transfers: { cold: true, warm: false },
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
      inbound: Numbers.make(rest.send),
      connect: application.connect
    }
  })
