/**
 * Transfer to a person: the port's `calls.transfer` and what it reports. The agent's call (answered,
 * its audio streaming to us) is handed to another number or SIP URI; the provider dials that target
 * and bridges the caller to it. The agent's part ends there: the application closes its media stream
 * and does not hang the call up. How the dialed target fared comes back once, as a `TransferResult`:
 *
 * - through the provider's HTTP callback to `resultUrl` (`webhooks.parseTransferResult`, verified
 *   with `webhooks.verify` as every callback): Twilio's `<Dial action>`, Plivo's and Vobiz's
 *   `<Dial action>`, Telnyx's, Vonage's, Cloudonix's and Exotel's status callbacks;
 * - or in-process (`onResult`) for providers that learn of it over their own connection (Asterisk's
 *   events WebSocket, the simulator).
 *
 * `cold`: the provider dials the target and bridges the caller when it answers. `warm`: the person
 * who answers first hears the agent's briefing (`TransferCall.briefing`, said or played to them by the
 * provider), then is joined with the caller, who waits meanwhile (hold music, or ringing); a provider
 * declares which it supports in `TelephonyProvider.transfers`, and the application falls back to `cold`
 * where `warm` is missing (the adapter is then asked `mode: "cold"`).
 */
import { type Effect, Schema } from "effect"

/** How a transfer's target fared, the same for every provider. */
export const TransferOutcome = Schema.Literal("answered", "busy", "no_answer", "failed")
export type TransferOutcome = typeof TransferOutcome.Type

export const TransferMode = Schema.Literal("cold", "warm")
export type TransferMode = typeof TransferMode.Type

/** What a provider can do; absent on a provider: no transfers at all. */
export interface TransferCapabilities {
  readonly cold: boolean
  readonly warm: boolean
}

/** A transfer's result as the provider reported it. */
export interface TransferResult {
  readonly outcome: TransferOutcome
  /** epoch milliseconds */
  readonly at: number
  /** The provider's own words or code for it (`DialCallStatus=no-answer`, a SIP code), for the run's log. */
  readonly cause?: string | undefined
}

export interface TransferCall<Config> {
  readonly config: Config
  /** The answered call whose caller is handed over. */
  readonly providerCallId: string
  /** Where to: E.164 (`+15551234567`) or a SIP URI (`sip:desk@pbx.example.com`), already validated. */
  readonly target: string
  /** The caller id for the new leg (the configuration's number), when the provider needs one. */
  readonly from: string | undefined
  /** Seconds the target may ring before the transfer counts as `no_answer`. */
  readonly timeoutSeconds: number
  /** `warm` only for an adapter that declares warm transfers; the application asks `cold` otherwise. */
  readonly mode: TransferMode
  /**
   * For a warm transfer: what the person who answers is told before the caller joins (the transfer
   * node's briefing, rendered). Undefined for a cold transfer.
   */
  readonly briefing: string | undefined
  /** Where the provider posts the transfer's result (`/api/v1/telephony/transfer-result/{transfer_id}`). */
  readonly resultUrl: string
  /** Delivers the result for providers that learn of it in-process; HTTP-callback providers ignore it. */
  readonly onResult: (result: TransferResult) => Effect.Effect<void>
}

/** Whether a target (E.164 or SIP URI, validated by the application) is a SIP URI. */
export const isSipTarget = (target: string) => /^sips?:/i.test(target)
