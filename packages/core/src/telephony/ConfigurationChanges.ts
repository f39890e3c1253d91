/**
 * What follows the telephony configurations as they are saved and deleted: a provider that keeps a
 * connection per configuration (ARI's events WebSocket) has it opened when the configuration is created
 * or changed (incoming calls need it before any outbound call) and closed when it is deleted. The
 * configurations only tell this port; the provider connections (`calls/ProviderConnections.ts`), which
 * sit above them, implement it.
 */
import { Context, type Effect } from "effect"
import type { StoredTelephonyConfiguration } from "./TelephonyConfigsRepo.js"

export class ConfigurationChanges extends Context.Tag("@agentline/core/ConfigurationChanges")<
  ConfigurationChanges,
  {
    /** A configuration was created or changed; waits briefly for its connection and never fails. */
    readonly saved: (configuration: StoredTelephonyConfiguration) => Effect.Effect<void>
    /** A configuration was deleted. */
    readonly deleted: (configurationId: number) => Effect.Effect<void>
  }
>() {}
