/**
 * The connections providers keep per configuration (`TelephonyProvider.connect`: ARI's events
 * WebSocket). One is opened when the configuration is created, by the application's sweep
 * (`ProviderConnections.keepConnected`: at start-up and every half minute, so incoming calls are heard
 * without an outbound call first), or at the latest on its first call, and kept open — every call of
 * the configuration reports over it — until the configuration changes (a new version opens a new one
 * and closes the old), is deleted, or the application stops (the scope this was made in closes).
 */
import { Effect, ExecutionStrategy, Exit, Scope } from "effect"
import type { TelephonyError } from "./TelephonyProvider.js"

export interface Connections {
  /**
   * Makes sure the connection of `configurationId` at `version` is open, opening it with `open` if
   * not. A failed open is not kept: the next call tries again.
   */
  readonly ensure: (
    configurationId: number,
    version: string,
    open: Effect.Effect<void, TelephonyError, Scope.Scope>
  ) => Effect.Effect<void, TelephonyError>
  /** Closes the connection of a configuration that was deleted (nothing when none is open). */
  readonly close: (configurationId: number) => Effect.Effect<void>
}

export const make: Effect.Effect<Connections, never, Scope.Scope> = Effect.gen(function*() {
  const parent = yield* Effect.scope
  const open = new Map<number, { readonly version: string; readonly scope: Scope.CloseableScope }>()
  // Opening is serialized: two calls of a configuration must not open two connections.
  const lock = yield* Effect.makeSemaphore(1)

  const ensure: Connections["ensure"] = (configurationId, version, connect) =>
    Effect.suspend(() => {
      if (open.get(configurationId)?.version === version) return Effect.void
      return lock.withPermits(1)(Effect.gen(function*() {
        const current = open.get(configurationId)
        if (current?.version === version) return
        if (current !== undefined) {
          open.delete(configurationId)
          yield* Scope.close(current.scope, Exit.void)
        }
        const scope = yield* Scope.fork(parent, ExecutionStrategy.sequential)
        const opened = yield* Effect.exit(Scope.extend(connect, scope))
        if (Exit.isFailure(opened)) {
          yield* Scope.close(scope, opened)
          return yield* opened
        }
        open.set(configurationId, { version, scope })
      }))
    })

  const close: Connections["close"] = (configurationId) =>
    lock.withPermits(1)(Effect.suspend(() => {
      const current = open.get(configurationId)
      if (current === undefined) return Effect.void
      open.delete(configurationId)
      return Scope.close(current.scope, Exit.void)
    }))

  return { ensure, close }
})
