import { Context, Layer } from "effect"
import { DEFAULT_RETRY_DELAYS_MILLIS } from "./WebhookEvents.js"

export interface WebhookOptions {
  /** Whether targets may be private, loopback or link-local addresses (`AGENTLINE_WEBHOOK_ALLOW_PRIVATE`). */
  readonly allowPrivate: boolean
  /** Delays before each retry (default: the Standard Webhooks schedule, about 27.6 hours in all). */
  readonly retryDelaysMillis: ReadonlyArray<number>
  /** How long one attempt may take before it counts as failed. */
  readonly timeoutMillis: number
  /** An endpoint whose every delivery has failed for this long is disabled (default 5 days). */
  readonly disableAfterMillis: number
  /** How often the outbox is looked at for due deliveries. */
  readonly pollMillis: number
  /** How often runs whose post-call work waits for a media session that never ended are looked for. */
  readonly sweepMillis: number
  /** Attempts in flight at once, in all; and to one endpoint, so one slow receiver cannot hold them all. */
  readonly maxInFlight: number
  readonly maxInFlightPerEndpoint: number
}

export class WebhookSettings extends Context.Tag("@agentline/core/WebhookSettings")<WebhookSettings, WebhookOptions>() {
  static layer = (options: Partial<WebhookOptions> = {}) =>
    Layer.succeed(WebhookSettings, {
      allowPrivate: options.allowPrivate ?? false,
      retryDelaysMillis: options.retryDelaysMillis ?? DEFAULT_RETRY_DELAYS_MILLIS,
      timeoutMillis: options.timeoutMillis ?? 10_000,
      disableAfterMillis: options.disableAfterMillis ?? 5 * 24 * 3_600_000,
      pollMillis: options.pollMillis ?? 1000,
      sweepMillis: options.sweepMillis ?? 60_000,
      maxInFlight: options.maxInFlight ?? 64,
      maxInFlightPerEndpoint: options.maxInFlightPerEndpoint ?? 16
    })
}
