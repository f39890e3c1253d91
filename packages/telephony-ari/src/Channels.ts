/**
 * The channels one adapter instance follows: each call's channel (its attempt, where its events go,
 * what to do once answered, how far it got), bounded in number, and the audio of an answered call: an
 * externalMedia channel over chan_websocket dialing this server's media route, bridged with the call in
 * a mixing bridge once it is in Stasis, and both removed once the call is gone.
 */
import type { CallEvent, CallInstruction } from "@agentline/telephony-kit/TelephonyProvider"
import type { TransferResult } from "@agentline/telephony-kit/Transfer"
import { Effect, Either } from "effect"
import * as Crypto from "node:crypto"
import type { AriConfig } from "./Config.js"
import * as AriRest from "./Rest.js"

/** Ended calls remembered for `get` and for late (replayed) events, at most. */
const REMEMBERED = 5000
/** Calls remembered at all (those whose end never came, events lost while disconnected, included). */
export const TRACKED = 50_000

export interface Call {
  readonly channelId: string
  readonly config: AriConfig
  readonly attemptId: number
  readonly onEvent: (event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>
  readonly whenAnswered: Exclude<CallInstruction, { readonly _tag: "Reject" }>
  /** Asterisk's timestamp of the answer (StasisStart), for the talk time. */
  answeredAt: number | undefined
  canceledByUs: boolean
  mediaStarted: boolean
  ended: { readonly outcome: CallEvent & { type: "ended" } } | undefined
  /** The call's transfer to a person, once asked (`Transfer.ts`). */
  transfer?: Transfer | undefined
}

/** A transfer's channel: the target dialed into the application for `call`'s caller (`Transfer.ts`). */
export interface Transfer {
  readonly channelId: string
  readonly call: Call
  readonly target: string
  readonly onResult: (result: TransferResult) => Effect.Effect<void>
  readonly timeoutSeconds: number
  /** Asterisk's time the channel was made (its `creationtime`), for the ring time. */
  createdAt: number | undefined
  answered: boolean
  reported: boolean
  ended: boolean
}

/** A call not yet answered, canceled or started: what `place` and an adopted channel begin with. */
export const newCall = (input: Pick<Call, "channelId" | "config" | "attemptId" | "onEvent" | "whenAnswered">): Call => ({
  ...input,
  answeredAt: undefined,
  canceledByUs: false,
  mediaStarted: false,
  ended: undefined
})

/** ARI's events are the provider's own reports: written to the run's log as they come (`onEvent`). */
export const durable = { durable: true } as const

/** The channel id `place` chooses: an adapter instance's, and the attempt's. */
export const OUTBOUND_CHANNEL = /^agentline-([0-9a-f]{8})-(\d+)$/

const mediaChannelId = (channelId: string) => `${channelId}-media`
const bridgeId = (channelId: string) => `${channelId}-bridge`

/** The media token of our media route URL (its last path segment). */
const tokenOf = (url: string) => new URL(url).pathname.split("/").filter((s) => s !== "").at(-1) ?? ""

export type Channels = ReturnType<typeof make>

export const make = (send: AriRest.Rest["send"]) => {
  /** Distinguishes this instance's channel ids from an earlier process's (attempt ids are per database). */
  const instance = Crypto.randomBytes(4).toString("hex")
  const calls = new Map<string, Call>()
  /** externalMedia channel id → the call's channel id. */
  const mediaChannels = new Map<string, string>()
  const endedOrder: Array<string> = []
  /** Transfer channel id → the transfer, while its channel lives. */
  const transfers = new Map<string, Transfer>()

  /** A call to hear events of; the oldest are dropped past `TRACKED`. */
  const track = (call: Call) => {
    while (calls.size >= TRACKED) calls.delete(calls.keys().next().value!)
    calls.set(call.channelId, call)
  }

  /** An ended call: remembered for a while (`get`, late events), then dropped. */
  const forget = (channelId: string) => {
    endedOrder.push(channelId)
    while (endedOrder.length > REMEMBERED) {
      const old = endedOrder.shift()!
      calls.delete(old)
      mediaChannels.delete(mediaChannelId(old))
    }
  }

  /** Best effort: what is left of a call's media (its channel, its bridge) once the call is gone. */
  const tearDown = (call: Call) =>
    Effect.all([
      send({ config: call.config, method: "DELETE", path: `/channels/${encodeURIComponent(mediaChannelId(call.channelId))}`, what: "hang up the media channel" }),
      send({ config: call.config, method: "DELETE", path: `/bridges/${encodeURIComponent(bridgeId(call.channelId))}`, what: "remove the bridge" })
    ], { discard: true, concurrency: 2 }).pipe(Effect.ignore)

  /** The answered call's audio: an externalMedia channel dialing our media route (bridged on its StasisStart). */
  const startMedia = (call: Call) =>
    Effect.gen(function*() {
      const instruction = call.whenAnswered
      if (instruction._tag !== "ConnectMediaStream") return
      if (call.config.ws_client_name === "") {
        return yield* Effect.logWarning(`ARI call ${call.channelId}: the configuration names no ws_client_name, so the call carries no audio`)
      }
      // The call may have ended while it was being answered: no audio for a call that is gone.
      if (call.ended !== undefined) return
      const externalId = mediaChannelId(call.channelId)
      mediaChannels.set(externalId, call.channelId)
      const created = yield* send({
        config: call.config,
        method: "POST",
        path: "/channels/externalMedia",
        query: {
          app: call.config.app_name,
          channelId: externalId,
          external_host: call.config.ws_client_name,
          format: "ulaw",
          transport: "websocket",
          encapsulation: "none",
          connection_type: "client",
          direction: "both",
          // Appended by chan_websocket to the websocket_client.conf URI as query parameters.
          transport_data: `v(token=${tokenOf(instruction.url)})`
        },
        what: "connect the call's audio"
      })
      if (Either.isLeft(created)) {
        yield* Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(created.left, "connect the call's audio").message}`)
      } else if (call.ended !== undefined) {
        // It ended while the media channel was being made: its teardown may have come first.
        yield* tearDown(call)
      }
    }).pipe(Effect.catchAll((e) => Effect.logWarning(`ARI call ${call.channelId}: ${e.message}`)))

  /** Both channels in one mixing bridge, once the media channel is in Stasis too. */
  const bridge = (call: Call) =>
    Effect.gen(function*() {
      // Being transferred: its audio is over, the transfer bridges the caller.
      if (call.transfer !== undefined) return
      const id = bridgeId(call.channelId)
      const made = yield* send({ config: call.config, method: "POST", path: "/bridges", query: { type: "mixing", bridgeId: id, name: id }, what: "create the bridge" })
      if (Either.isLeft(made)) return yield* Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(made.left, "create the bridge").message}`)
      const added = yield* send({
        config: call.config,
        method: "POST",
        path: `/bridges/${encodeURIComponent(id)}/addChannel`,
        query: { channel: `${call.channelId},${mediaChannelId(call.channelId)}` },
        what: "bridge the call with its audio"
      })
      if (Either.isLeft(added)) yield* Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(added.left, "bridge the call with its audio").message}`)
    }).pipe(Effect.catchAll((e) => Effect.logWarning(`ARI call ${call.channelId}: ${e.message}`)))

  /** The agent's media leg hung up (a transfer: the agent's part is over); 404 is fine. */
  const dropMedia = (call: Call) =>
    send({ config: call.config, method: "DELETE", path: `/channels/${encodeURIComponent(mediaChannelId(call.channelId))}`, what: "hang up the media channel" })

  /**
   * A transfer's answered channel into the call's mixing bridge, with the caller if it is not in it (a
   * call without audio has no bridge yet; one transferred before its audio was bridged is not in it).
   * Whether it worked.
   */
  const bridgeTransfer = (transfer: Transfer) =>
    Effect.gen(function*() {
      const { call } = transfer
      const { config } = call
      const id = bridgeId(call.channelId)
      const found = yield* send({ config, method: "GET", path: `/bridges/${encodeURIComponent(id)}`, what: "look the bridge up" })
      let members: ReadonlyArray<unknown> = []
      if (Either.isRight(found)) {
        const bridge = typeof found.right === "object" && found.right !== null ? found.right as Record<string, unknown> : {}
        members = Array.isArray(bridge.channels) ? bridge.channels : []
      } else {
        // 409: made meanwhile (the call's own audio bridge), without the caller yet.
        const made = yield* send({ config, method: "POST", path: "/bridges", query: { type: "mixing", bridgeId: id, name: id }, what: "create the bridge" })
        if (Either.isLeft(made) && made.left.status !== 409) {
          return yield* Effect.as(Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(made.left, "create the bridge").message}`), false)
        }
      }
      const joining = members.includes(call.channelId) ? [transfer.channelId] : [call.channelId, transfer.channelId]
      const added = yield* send({
        config,
        method: "POST",
        path: `/bridges/${encodeURIComponent(id)}/addChannel`,
        query: { channel: joining.join(",") },
        what: "bridge the caller with the transfer"
      })
      if (Either.isRight(added)) return true
      return yield* Effect.as(Effect.logWarning(`ARI call ${call.channelId}: ${AriRest.failure(added.left, "bridge the caller with the transfer").message}`), false)
    }).pipe(Effect.catchAll((e) => Effect.as(Effect.logWarning(`ARI transfer ${transfer.channelId}: ${e.message}`), false)))

  return {
    instance,
    /** The transfer whose channel this is, if any. */
    transferOf: (channelId: string) => transfers.get(channelId),
    trackTransfer: (transfer: Transfer) => {
      transfer.call.transfer = transfer
      transfers.set(transfer.channelId, transfer)
    },
    /** Stops following a transfer's channel; `made: false`, it never was (the call may be transferred again). */
    dropTransfer: (transfer: Transfer, made: boolean) => {
      transfers.delete(transfer.channelId)
      if (!made && transfer.call.transfer === transfer) transfer.call.transfer = undefined
    },
    dropMedia,
    bridgeTransfer,
    /** The call of a channel id, if followed. */
    call: (channelId: string) => calls.get(channelId),
    /** The call whose media channel this is, if any. */
    callOfMedia: (channelId: string) => {
      const parent = mediaChannels.get(channelId)
      return parent === undefined ? undefined : { call: calls.get(parent) }
    },
    track,
    /** Stops following a call that never started (a refused dial or answer). */
    drop: (channelId: string) => void calls.delete(channelId),
    forget,
    tearDown,
    startMedia,
    bridge
  } as const
}
