/**
 * The providers this application knows, keyed by name, composed once at the edge (the server from the
 * first-party packages, the simulator and the embedding application's own adapters).
 */
import { Context, Layer, Option } from "effect"
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"

export interface TelephonyRegistryShape {
  readonly get: (name: string) => Option.Option<TelephonyProvider>
  /** Every provider, in name order. */
  readonly all: ReadonlyArray<TelephonyProvider>
}

export class TelephonyRegistry extends Context.Tag("@agentline/core/TelephonyRegistry")<TelephonyRegistry, TelephonyRegistryShape>() {
  /**
   * A registry of `providers`. A provider named like an earlier one replaces it, so an application
   * lists the built-in providers first and its own after them: its `twilio` adapter then replaces
   * the built-in `twilio`.
   */
  static make(providers: ReadonlyArray<TelephonyProvider>): TelephonyRegistryShape {
    const byName = new Map<string, TelephonyProvider>()
    for (const provider of providers) byName.set(provider.name, provider)
    const all = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name))
    return { get: (name) => Option.fromNullable(byName.get(name)), all }
  }

  static layer(providers: ReadonlyArray<TelephonyProvider>): Layer.Layer<TelephonyRegistry> {
    return Layer.sync(TelephonyRegistry, () => TelephonyRegistry.make(providers))
  }
}
