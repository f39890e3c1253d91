import { Context, Layer } from "effect"
import * as Crypto from "node:crypto"

export interface DispatcherOptions {
  /** This process's identity in leases and attempts. */
  readonly nodeId: string
  /** How long a campaign lease lasts without a heartbeat; another process may take over after that. */
  readonly leaseSeconds: number
  /** How often unowned running campaigns are looked for (start and resume also look at once). */
  readonly acquireIntervalMillis: number
  /** Contacts considered per claim. */
  readonly claimBatch: number
  /**
   * How long an idle loop waits before looking again without a signal: only events another process
   * causes (a slot freed elsewhere) are not signalled here.
   */
  readonly recheckMillis: number
  /**
   * How often this process looks for attempts nobody is settling: its own past their `reconcile_at`
   * (a lost write, a call it lost track of) and those of processes that stopped.
   */
  readonly sweepIntervalMillis: number
  /**
   * Added to an agent's longest call (and given to a claim before it reaches the provider) before the
   * provider is asked what became of an attempt that has not ended.
   */
  readonly reconcileMarginSeconds: number
  /** On a graceful stop, how long calls in progress may take to end before the rest is handed over. */
  readonly drainMillis: number
}

export class DispatcherSettings extends Context.Tag("@agentline/core/DispatcherSettings")<DispatcherSettings, DispatcherOptions>() {
  static layer = (options: Partial<DispatcherOptions> = {}) =>
    Layer.succeed(DispatcherSettings, {
      nodeId: options.nodeId ?? `node-${Crypto.randomUUID()}`,
      leaseSeconds: options.leaseSeconds ?? 15,
      acquireIntervalMillis: options.acquireIntervalMillis ?? 1000,
      claimBatch: options.claimBatch ?? 200,
      recheckMillis: options.recheckMillis ?? 5000,
      sweepIntervalMillis: options.sweepIntervalMillis ?? 5000,
      reconcileMarginSeconds: options.reconcileMarginSeconds ?? 60,
      drainMillis: options.drainMillis ?? 10_000
    })
}
