/**
 * What the contract suite needs from a provider under test: its adapter pointed at its fake,
 * credentials for a configuration, and the fake's test knobs. An adapter package implements this once,
 * over its own fake (a few lines per knob), and runs `runContract` with it from its own tests; the
 * server's suite (Agentline's `packages/http/test/contract`) takes the same object.
 * See docs/telephony-adapters.md, "Testing an adapter".
 */
import type { HttpClient } from "@effect/platform"
import type { Effect, Scope } from "effect"
import type { AudioFormat } from "../AudioFormat.js"
import type { TelephonyProvider } from "../TelephonyProvider.js"

/**
 * How the callee of a dialed number behaves. `completed`: a person answers, talks a moment (at most a
 * second or two of real time) and hangs up; `voicemail`: a machine answers; `invalid`: the provider
 * refuses to dial the number at all; `talking`: a person answers and stays on the line (tens of
 * seconds) until hung up. Unanswered calls (`no_answer`) give up within a few seconds of real time.
 */
export type Scenario = "completed" | "busy" | "no_answer" | "failed" | "voicemail" | "invalid" | "talking"

/** The far end of a call's media stream, as the fake plays it; audio in the stream's own format. */
export interface FakeMediaLeg {
  /** The stream's format, both ways (what the adapter's codec must announce in `Start`). */
  readonly format: AudioFormat
  /** The URL the provider connected the stream to (with its token). */
  readonly url: string
  /** The person on the phone speaks: audio in `format`, sent in the provider's framing. */
  readonly speak: (audio: Uint8Array) => void
  readonly press: (digit: string) => void
  /** Everything the application sent as audio. */
  readonly received: () => Uint8Array
  /** What the person heard: `received` less what a clear dropped. */
  readonly heard: () => Uint8Array
  /** The marks the provider reported back, in order. */
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  readonly isOpen: () => boolean
}

/** An incoming call as the fake saw its answer. */
export interface FakeInbound {
  readonly providerCallId: string
  /** The HTTP status of the application's answer to the voice webhook. */
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
  /** Where `number`'s voice webhook points now (what `inbound.configure` set). */
  readonly voiceUrl: (number: string) => string | null
  /**
   * A caller dials `to`, which the fake's account owns: the provider posts its voice webhook (signed,
   * or with a wrong signature) and runs the answer. The caller stays on the line until `hangUp`.
   */
  readonly placeInbound: (input: { readonly to: string; readonly from: string; readonly signature?: "wrong" }) => Promise<FakeInbound>
  /** Waits until the call's media stream is connected to the application. */
  readonly media: (providerCallId: string) => Promise<FakeMediaLeg>
  /** Waits until the fake has played the call out (all its callbacks posted); its end as an outcome word. */
  readonly ended: (providerCallId: string) => Promise<string>
  /** Posts the call's callbacks again, as posted or reversed (provider retries, reordering): HTTP statuses. */
  readonly resendCallbacks: (providerCallId: string, order: "same" | "reverse") => Promise<ReadonlyArray<number>>
  /** Posts one of the call's callbacks again with a wrong signature, or none: HTTP status. */
  readonly forgeCallback: (providerCallId: string, signature: "wrong" | "missing") => Promise<number>
  /**
   * Where the carrier dialed when asked to transfer the call (as its API or answer document said), for
   * an adapter that transfers; undefined before. A target's behaviour is set with `behave` as any number's.
   */
  readonly transferredTo?: (providerCallId: string) => string | undefined
  /**
   * For a carrier whose adapter does warm transfers: what the fake played out for the warm transfer of
   * the call — `briefed`, what the target was told (or played) before joining the caller, in order;
   * `callerHeard`, what the caller got meanwhile and after (`hold` while waiting on hold music or
   * ringing, then anything said to them, in order). Undefined before the transfer.
   */
  readonly warmTransfer?: (providerCallId: string) => WarmTransferSeen | undefined
  readonly close: () => Promise<void>
}

/** A warm transfer as the fake played it out (`CarrierFake.warmTransfer`). */
export interface WarmTransferSeen {
  readonly target: string
  readonly briefed: ReadonlyArray<string>
  readonly callerHeard: ReadonlyArray<string>
}

export interface Started {
  readonly fake: CarrierFake
  /**
   * The adapter, its API pointed at the fake, made the adapter's one way (`make`: it takes its
   * `HttpClient` from the context; a `Scope`, for one that plays calls in it, lasts as long as the
   * suite). In the server's suite it replaces the built-in provider of the name.
   */
  readonly adapter: Effect.Effect<TelephonyProvider, never, HttpClient.HttpClient | Scope.Scope>
  /** A configuration body (without `provider`), with answering machine detection when asked. */
  readonly config: (options: { readonly machineDetection: boolean }) => Record<string, unknown>
}

export interface CarrierUnderTest {
  /** The provider's name (`twilio`). */
  readonly provider: string
  /**
   * The call events an answered call reports at least (default `ringing`, `answered`, `ended`):
   * Telnyx's Call Control, for one, reports no ringing.
   */
  readonly answeredProgress?: ReadonlyArray<string>
  /**
   * Whether the provider detects answering machines (default true). Without it, the configuration has
   * no such flag and the voicemail scenario is not part of its contract.
   */
  readonly machineDetection?: boolean
  /**
   * Whether `inbound.configure` can point a number at the application by API (default true). Exotel's
   * cannot: a number reaches a URL through a flow built by hand. It then reports `ok: false` with the
   * URL to paste, and the contract pastes it (`fake.route`) as the operator would.
   */
  readonly inboundByApi?: boolean
  /**
   * Whether the provider can give a caller a busy signal (default true). Exotel's Voicebot applet has
   * none: over the organization's limit an incoming call is refused like any other.
   */
  readonly busySignal?: boolean
  /**
   * Whether the provider refuses to dial a number it cannot reach (default true). The simulator dials
   * anything: the `invalid` scenario is then not part of its contract.
   */
  readonly refusesNumbers?: boolean
  /**
   * Whether the provider has an API that can answer 429 or 5xx (default true). The simulator has none:
   * `failNext` is then never asked.
   */
  readonly transientFailures?: boolean
  /**
   * Whether the adapter transfers calls to a person (default false). The transfer cases of the contract
   * run only then; the adapter must declare transfers exactly when this is set.
   */
  readonly transfers?: boolean
  /**
   * Whether the provider's API can end a call that is still ringing (default true). One that cannot
   * says so (`hangUp` fails, not retryable) and the call rings on until answered or given up on.
   */
  readonly endsRingingCalls?: boolean
  /**
   * Set when the provider has no per-number voice webhook (Asterisk: the dialplan sends calls to the
   * Stasis application): `inbound.configure` then only checks the provider, and `voiceUrl` is not
   * asked. Default false.
   */
  readonly numbersRoutedByDialplan?: boolean
  /**
   * Starts the fake. `publicUrl` is the application's (the contract's stand-in, or the server): a fake
   * that dials it at a fixed URI (Asterisk's chan_websocket, configured once in websocket_client.conf)
   * needs it up front.
   */
  readonly start: (context: { readonly publicUrl: string }) => Promise<Started>
}
