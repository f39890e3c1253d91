/**
 * The fake Asterisk's own state, for `FakeAri`: channels playing out on a clock scaled by
 * `secondMillis` (ringing, answering, ending with a Q.850 cause as the callee's behaviour says),
 * bridges, and the events of each channel sent to the WebSocket that owns its application (the one
 * that registered it last, as in Asterisk).
 */
import type { WebSocket } from "ws"
import type * as ChanWebsocket from "./FakeChanWebsocket.js"

export interface Behaviour {
  readonly answer: "human" | "busy" | "no-answer" | "failed" | "invalid"
  /** Asterisk seconds the callee talks before hanging up (default 5). */
  readonly talkSeconds?: number
  /** Asterisk seconds of ringing before an answer or a busy/failure (default 2). */
  readonly ringSeconds?: number
}

export interface FakeAriOptions {
  readonly user: string
  readonly password: string
  /** Real milliseconds per Asterisk second. */
  readonly secondMillis: number
  /** websocket_client.conf: connection name → URI. */
  readonly websocketClients?: Readonly<Record<string, string>>
}

export type Json = Record<string, unknown>

export type FinalStatus = "completed" | "busy" | "no_answer" | "failed" | "canceled"

export interface FakeChannel {
  readonly id: string
  readonly app: string
  readonly endpoint: string
  readonly number: string
  readonly args: ReadonlyArray<string>
  readonly direction: "outbound" | "inbound"
  /** The channel an originated one was made for (ARI's `originator`): a transfer's caller. */
  readonly originator?: string | undefined
  state: string
  /** Whether ringing is indicated to the channel (`POST /ari/channels/{id}/ring`, until `DELETE`). */
  ringing: boolean
  inStasis: boolean
  destroyed: boolean
  /** The events sent about this channel, in order. */
  readonly events: Array<Json>
  /** Resolves with how the channel ended, once every event of it was sent. */
  readonly ended: Promise<FinalStatus>
  /**
   * What the application did with an incoming channel: answered it, or hung it up (`reason` as the
   * DELETE named it), or the far end went first (`gone`).
   */
  readonly fate: Promise<{ readonly _tag: "Answered" } | { readonly _tag: "HungUp"; readonly reason: string } | { readonly _tag: "Gone" }>
  /** Resolves once its externalMedia channel's WebSocket is connected. */
  readonly mediaConnected: Promise<ChanWebsocket.MediaLeg>
  /** Sends again the events `keep` selects, in order or reversed; waits a moment for them to be read. */
  readonly resend: (order: "same" | "reverse", keep: (event: Json) => boolean) => Promise<ReadonlyArray<number>>
  /** The far end hangs up. */
  readonly hangUp: (cause?: number, causeText?: string) => void
}

export interface Channel extends FakeChannel {
  timers: Array<NodeJS.Timeout>
  answered: boolean
  final: FinalStatus | undefined
  finish: (status: FinalStatus) => void
  connectMedia: (leg: ChanWebsocket.MediaLeg) => void
  decide: (fate: Awaited<FakeChannel["fate"]>) => void
  media?: { readonly leg: Promise<ChanWebsocket.MediaLeg>; readonly parent: string }
  mediaLeg?: ChanWebsocket.MediaLeg
}

const isoStamp = (millis: number) => new Date(millis).toISOString().replace("Z", "+0000")

export type Asterisk = ReturnType<typeof make>

export const make = (options: { readonly secondMillis: number; readonly websocketClients?: Readonly<Record<string, string>> | undefined }) => {
  const realStart = Date.now()
  const epoch = Date.UTC(2025, 0, 1)
  /** Asterisk's clock, scaled. */
  const clock = () => epoch + ((Date.now() - realStart) * 1000) / options.secondMillis
  const later = (seconds: number) => seconds * options.secondMillis
  const behaviours = new Map<string, Behaviour>()
  const channels = new Map<string, Channel>()
  const bridges = new Map<string, { id: string; channels: Set<string> }>()
  const clients = new Map<string, string>(Object.entries(options.websocketClients ?? {}))
  /** App → the sockets registered for it, the last one owning it. */
  const sockets = new Map<string, Array<WebSocket>>()
  const snapshot = (channel: Channel) => ({
    id: channel.id,
    name: channel.direction === "outbound" ? `${channel.endpoint.split("@")[0]}-${channel.id.slice(-8)}` : `PJSIP/caller-${channel.id.slice(-8)}`,
    state: channel.state,
    caller: { name: "", number: channel.direction === "inbound" ? channel.endpoint : "" },
    connected: { name: "", number: "" },
    accountcode: "",
    dialplan: { context: "from-internal", exten: channel.direction === "inbound" ? channel.number : "s", priority: 1, app_name: "Stasis", app_data: channel.app },
    creationtime: isoStamp(clock()),
    language: "en"
  })

  const emit = (channel: Channel, type: string, extra: Json = {}, record = true) => {
    const event: Json = { type, timestamp: isoStamp(clock()), application: channel.app, asterisk_id: "fa:ke:as:te:ri:sk", ...extra, channel: snapshot(channel) }
    if (record) channel.events.push(event)
    send(channel.app, event)
  }
  const debug = process.env.AGENTLINE_FAKE_ARI_DEBUG === "1" ? (...a: Array<unknown>) => console.error("[fake-ari]", Date.now() % 100000, ...a) : () => undefined
  const send = (app: string, event: Json) => {
    debug("event", event.type, (event.channel as any)?.id, (event.channel as any)?.state, sockets.get(app)?.length)
    const owner = sockets.get(app)?.at(-1)
    if (owner !== undefined && owner.readyState === owner.OPEN) owner.send(JSON.stringify(event))
  }

  const destroy = (channel: Channel, cause: number, causeText: string, status: FinalStatus) => {
    if (channel.destroyed) return
    channel.timers.forEach(clearTimeout)
    channel.destroyed = true
    if (channel.inStasis) {
      emit(channel, "ChannelHangupRequest", { cause })
      channel.inStasis = false
      emit(channel, "StasisEnd")
    }
    channel.state = "Down"
    emit(channel, "ChannelDestroyed", { cause, cause_txt: causeText })
    for (const bridge of bridges.values()) bridge.channels.delete(channel.id)
    // A media connection still being made is closed once it opens (see externalMedia below).
    channel.mediaLeg?.close()
    channel.decide({ _tag: "Gone" })
    channel.finish(status)
  }

  const makeChannel = (input: {
    id: string
    app: string
    endpoint: string
    number: string
    args: ReadonlyArray<string>
    direction: "outbound" | "inbound"
    state: string
    originator?: string | undefined
  }) => {
    let finish!: (status: FinalStatus) => void
    const ended = new Promise<FinalStatus>((resolve) => (finish = resolve))
    let decide!: Channel["decide"]
    const fate = new Promise<Awaited<FakeChannel["fate"]>>((resolve) => (decide = resolve))
    let connectMedia!: (leg: ChanWebsocket.MediaLeg) => void
    const mediaConnected = new Promise<ChanWebsocket.MediaLeg>((resolve) => (connectMedia = resolve))
    const channel: Channel = {
      ...input,
      ringing: false,
      inStasis: false,
      destroyed: false,
      events: [],
      ended,
      fate,
      decide,
      mediaConnected,
      timers: [],
      answered: false,
      final: undefined,
      finish: (status) => {
        channel.final = status
        finish(status)
      },
      connectMedia,
      resend: async (order, keep) => {
        const events = channel.events.filter(keep)
        for (const event of order === "same" ? events : [...events].reverse()) send(channel.app, event)
        // Asterisk does not acknowledge events: give the application a moment to read them.
        await new Promise((resolve) => setTimeout(resolve, 300))
        return events.map(() => 200)
      },
      hangUp: (cause = 16, causeText = "Normal Clearing") => destroy(channel, cause, causeText, channel.answered ? "completed" : "canceled")
    }
    channels.set(channel.id, channel)
    return channel
  }

  const answer = (channel: Channel, talkSeconds: number) => {
    channel.answered = true
    channel.state = "Up"
    emit(channel, "ChannelStateChange")
    channel.inStasis = true
    emit(channel, "StasisStart", { args: channel.args })
    channel.timers.push(setTimeout(() => destroy(channel, 16, "Normal Clearing", "completed"), later(talkSeconds)))
  }

  const play = (channel: Channel, behaviour: Behaviour, timeoutSeconds: number) => {
    const ring = behaviour.ringSeconds ?? 2
    channel.timers.push(setTimeout(() => {
      channel.state = "Ringing"
      emit(channel, "ChannelStateChange")
      switch (behaviour.answer) {
        case "human":
          channel.timers.push(setTimeout(() => answer(channel, behaviour.talkSeconds ?? 5), later(ring)))
          break
        case "busy":
          channel.timers.push(setTimeout(() => destroy(channel, 17, "User busy", "busy"), later(ring)))
          break
        case "failed":
          channel.timers.push(setTimeout(() => destroy(channel, 34, "Circuit/channel congestion", "failed"), later(ring / 2)))
          break
        case "no-answer":
          channel.timers.push(setTimeout(() => destroy(channel, 19, "No answer", "no_answer"), later(timeoutSeconds)))
          break
        case "invalid":
          break
      }
    }, later(0.25)))
  }

  return { clock, isoStamp, later, behaviours, channels, bridges, clients, sockets, snapshot, emit, send, debug, destroy, makeChannel, answer, play } as const
}
