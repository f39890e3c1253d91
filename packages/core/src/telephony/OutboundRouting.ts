/**
 * Which telephony configuration, provider and caller ids an outbound call goes through. Implemented
 * by the telephony configurations service (decrypting the stored credentials); the dispatcher and the
 * campaign service only see this.
 */
import { Context, type Effect } from "effect"
import type { BadRequest, NotFound } from "../Errors.js"
import type { TelephonyProvider } from "./TelephonyProvider.js"

export interface OutboundRoute {
  readonly configurationId: number
  readonly configurationName: string
  readonly provider: TelephonyProvider
  /** The decoded, decrypted provider config. Never log it. */
  readonly config: unknown
  /** The configuration's default caller id (normalized), if one is set. */
  readonly defaultCallerId: string | null
  /** Its active numbers (normalized), rotated through when there is no default. */
  readonly callerIds: ReadonlyArray<string>
}

export class OutboundRouting extends Context.Tag("@agentline/core/OutboundRouting")<
  OutboundRouting,
  {
    /**
     * The configuration with this id in the organization, or the organization's default outbound
     * configuration when `configurationId` is null. Fails with 400 `telephony_configuration_not_found`
     * when there is none, or the id is not the organization's.
     */
    readonly resolve: (
      organizationId: number,
      configurationId: number | null
    ) => Effect.Effect<OutboundRoute, BadRequest | NotFound>
  }
>() {}
