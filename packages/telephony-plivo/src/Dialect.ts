/**
 * What differs between Plivo and the carriers that copied its API (Vobiz): where the API lives and how
 * it authenticates, how callbacks are signed, how a number is tied to an application, and the byte
 * order of L16 audio. Everything else — the Call API, callbacks, the answer XML, the stream protocol —
 * is shared by `PlivoCompatible.ts`, so a Plivo clone is one dialect value, not a copy of the adapter.
 */
import type { AudioEncoding } from "@agentline/core/audio/AudioFormat"
import { optionalText, present, providerConfig, requiredText } from "@agentline/core/telephony/ProviderConfig"
import type { ProviderField } from "@agentline/core/telephony/TelephonyProvider"
import { Schema } from "effect"
import * as Signature from "./Signature.js"

/** The credentials of a Plivo-compatible configuration. */
export const PlivoCompatibleConfig = providerConfig({
  auth_id: requiredText("auth_id"),
  auth_token: requiredText("auth_token"),
  application_id: optionalText,
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type PlivoCompatibleConfig = typeof PlivoCompatibleConfig.Type

export const amdField: ProviderField = {
  name: "amd_enabled",
  label: "Answering machine detection",
  type: "boolean",
  required: false,
  sensitive: false,
  description: "Ask the carrier to detect answering machines; a machine answer ends the call as voicemail"
}

export interface PlivoDialect {
  /** The registry name and run mode, e.g. `plivo`. */
  readonly name: string
  readonly displayName: string
  /** The environment variable naming the API's base URL, and its default (the public endpoint). */
  readonly apiUrlVariable: string
  readonly defaultApiUrl: string
  /** The path before `/Account/{auth_id}/...`, e.g. `/v1`. */
  readonly apiPrefix: string
  readonly fields: ReadonlyArray<ProviderField>
  /** Request headers that authenticate as the configuration's account. */
  readonly authHeaders: (config: PlivoCompatibleConfig) => Readonly<Record<string, string>>
  /** The signature headers the carrier sends, and what it signs. */
  readonly signature: Signature.Scheme
  /** How a number is tied to an application (`Number/{n}/ {app_id}` or `numbers/{n}/application`). */
  readonly numberLink: "plivo" | "vobiz"
  /** The byte order of `audio/x-l16` the carrier streams to us (what it accepts back is little-endian). */
  readonly l16Inbound: Extract<AudioEncoding, "l16le" | "l16be">
  /** Whether the Call API's `request_uuid` is the call's uuid (Vobiz); Plivo names the call later. */
  readonly requestIsCall: boolean
  /** Whether our stream commands carry the stream id (`playAudio` does on Vobiz). */
  readonly streamIdInPlayAudio: boolean
}

/** The account the configuration routes inbound calls by: its Auth ID. */
export const accountId = (config: PlivoCompatibleConfig): string | undefined => present(config.auth_id)
