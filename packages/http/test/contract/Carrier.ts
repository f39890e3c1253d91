/**
 * What the shared contract suite needs from a provider under test: its adapter pointed at its fake,
 * credentials for a telephony configuration, and the fake's test knobs. Each provider's wiring file
 * (`Twilio.test.ts`, ...) implements this in a few lines over its own fake; see
 * docs/telephony-adapters.md, "Adding a provider to the contract suite".
 */
import type { TelephonyProvider } from "@agentline/core/telephony/TelephonyProvider"

/**
 * How the callee of a dialed number behaves. `voicemail`: a machine answers; `invalid`: the provider
 * refuses the number; `talking`: a person answers and stays on the line (tens of seconds) until hung up.
 */
export type Scenario = "completed" | "busy" | "no_answer" | "failed" | "voicemail" | "invalid" | "talking"

/** The far end of a call's media stream, as the fake plays it (audio as PCM at `sampleRate`). */
export interface FakeMediaLeg {
  readonly sampleRate: number
  /** The URL the provider connected the stream to (with its token). */
  readonly url: string
  /** The person on the phone speaks: PCM at `sampleRate`, sent in the provider's framing and codec. */
  readonly speak: (samples: Int16Array) => void
  readonly press: (digit: string) => void
  /** Everything the server sent as audio, decoded. */
  readonly received: () => Int16Array
  /** What the person heard: `received` less what a clear dropped. */
  readonly heard: () => Int16Array
  /** The marks the provider reported back, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  readonly isOpen: () => boolean
}

/** An incoming call as the fake saw its answer. */
export interface FakeInbound {
  readonly providerCallId: string
  /** The HTTP status of the server's answer to the voice webhook. */
  readonly status: number
  /** `stream`: connected to a media stream; `busy`: a busy signal; `refused`: a message, then hang-up. */
  readonly answer: "stream" | "busy" | "refused"
  /** The caller hangs up. */
  readonly hangUp: () => void
}

export interface CarrierFake {
  /** The fake's account owns `number` (a caller id, or a number for incoming calls). */
  readonly own: (number: string) => void
  /** Calls to `number` go as `scenario`. */
  readonly behave: (number: string, scenario: Scenario) => void
  /** The next `count` API requests of the adapter answer `status` (429 or 5xx). */
  readonly failNext: (status: number, count: number) => void
  /** Points `number`'s voice webhook at `url` as if set in the provider's console (`null`: none). */
  readonly route: (number: string, url: string | null) => void
  /** Where `number`'s voice webhook points now (what `provider_sync` set). */
  readonly voiceUrl: (number: string) => string | null
  /**
   * A caller dials `to`, which the fake's account owns: the provider posts its voice webhook (signed,
   * or with a wrong signature) and runs the answer. The caller stays on the line until `hangUp`.
   */
  readonly placeInbound: (input: { readonly to: string; readonly from: string; readonly signature?: "wrong" }) => Promise<FakeInbound>
  /** Waits until the call's media stream is connected to the server. */
  readonly media: (providerCallId: string) => Promise<FakeMediaLeg>
  /** Waits until the fake has played the call out (all its callbacks posted); its final provider status. */
  readonly ended: (providerCallId: string) => Promise<string>
  /** Posts the call's callbacks again, as posted or reversed (provider retries, reordering): HTTP statuses. */
  readonly resendCallbacks: (providerCallId: string, order: "same" | "reverse") => Promise<ReadonlyArray<number>>
  /** Posts one of the call's callbacks again with a wrong signature, or none: HTTP status. */
  readonly forgeCallback: (providerCallId: string, signature: "wrong" | "missing") => Promise<number>
  readonly close: () => Promise<void>
}

export interface Started {
  readonly fake: CarrierFake
  /** The adapter, its API pointed at the fake. It replaces the built-in provider of the same name. */
  readonly adapter: TelephonyProvider
  /** A configuration body (`config` of `POST /organizations/telephony-configs`), with answering machine detection when asked. */
  readonly config: (options: { readonly machineDetection: boolean }) => Record<string, unknown>
}

export interface CarrierUnderTest {
  /** The provider's name (`twilio`). */
  readonly provider: string
  /** Real milliseconds within which the fake plays a whole short call out (ring, talk, callbacks). */
  readonly callMillis: number
  /**
   * The statuses an answered call's run log shows at least (default `ringing`, `answered`, `ended`):
   * Telnyx's Call Control, for one, reports no ringing.
   */
  readonly answeredProgress?: ReadonlyArray<string>
  /**
   * Whether the provider detects answering machines (default true). Without it, the configuration has
   * no such flag and the voicemail scenario is not part of its contract.
   */
  readonly machineDetection?: boolean
  /**
   * Whether `provider_sync` can point a number at the server by API (default true). Exotel's cannot: a
   * number reaches a URL through a flow built by hand. Binding then reports `ok: false` with the URL to
   * paste, and the contract pastes it (`fake.route`) as the operator would.
   */
  readonly inboundByApi?: boolean
  /**
   * Whether the provider can give a caller a busy signal (default true). Exotel's Voicebot applet has
   * none: over the organization's limit an incoming call is refused like any other.
   */
  readonly busySignal?: boolean
  /**
   * Whether the provider's API can end a call that is still ringing (default true). Exotel's documents
   * no such request: its adapter says so (a non-retryable error) and the call rings on until answered or
   * given up on.
   */
  readonly endsRingingCalls?: boolean
  /**
   * Set when the provider has no per-number voice webhook (Asterisk: the dialplan sends calls to the
   * Stasis application): `provider_sync` then only checks the provider, and `voiceUrl` is not asked.
   * Default false.
   */
  readonly numbersRoutedByDialplan?: boolean
  /**
   * Starts the fake. `publicUrl` is the server's: a fake that dials the server itself at a fixed URI
   * (Asterisk's chan_websocket, configured once in websocket_client.conf) needs it up front.
   */
  readonly start: (context?: { readonly publicUrl: string }) => Promise<Started>
}
