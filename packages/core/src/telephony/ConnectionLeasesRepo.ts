/**
 * Storage port of the connection leases: which process holds a configuration's provider connection
 * (ARI's events WebSocket) while several serve one database. Asterisk gives an application to the
 * WebSocket that registered it last, so two processes holding one would take it from each other; the
 * lease makes one process the holder until it lets go or stops renewing.
 */
import { Context, type Effect } from "effect"

export class ConnectionLeasesRepo extends Context.Tag("@agentline/core/ConnectionLeasesRepo")<
  ConnectionLeasesRepo,
  {
    /**
     * Takes or renews the lease `key` for `node` until `expiresAt`: granted when nobody holds it, when
     * `node` does, or when the holder's lease ran out before `now`. One atomic statement.
     */
    readonly acquire: (input: { readonly key: string; readonly node: string; readonly now: string; readonly expiresAt: string }) => Effect.Effect<boolean>
    /** Gives the lease up (nothing when `node` does not hold it), so another process takes it at once. */
    readonly release: (input: { readonly key: string; readonly node: string }) => Effect.Effect<void>
  }
>() {}
