/**
 * What an operator sees of the domain: the metric instruments and span names, declared once. They are
 * plain Effect metrics and spans; the edge exports them (Prometheus text at `/metrics`, OTLP traces) and
 * nothing computes them a second time. docs/production.md lists every name with its labels.
 *
 * Effect's metric registry is process-wide: each process reports its own calls, and Prometheus sums the
 * processes of a deployment.
 */
import { Clock, Effect, Metric, MetricBoundaries } from "effect"

/** Latencies of database work and of the dispatcher's loop: a millisecond to ten seconds. */
const FAST_SECONDS = MetricBoundaries.fromIterable([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])

/** Delays of deliveries that may wait for retries: ten milliseconds to a day. */
const SLOW_SECONDS = MetricBoundaries.fromIterable([0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600, 21600, 86400])

// ----------------------------------------------------------------------------------------- dispatcher

/**
 * Calls this process has in progress (claimed, dialing or talking), per organization and campaign
 * (`campaign_id="none"` for single, test and incoming calls). Summed over processes it is the
 * deployment's; the database stays the truth (`claimed`/`dialing` attempts).
 */
export const callsInProgress = Metric.gauge("agentline_calls_in_progress", {
  description: "Calls in progress in this process, per organization and campaign"
})

/** Call attempts that ended, by outcome (`completed`, `busy`, `no_answer`, `voicemail`, `failed`, `canceled`, `interrupted`) and provider. */
export const callAttempts = Metric.counter("agentline_call_attempts_total", {
  description: "Call attempts ended, by outcome and provider",
  incremental: true
})

/** How long a claim takes: the transaction that claims due contacts (or a single call's slot), their runs and `dialing`. */
export const claimDuration = Metric.histogram(
  "agentline_claim_duration_seconds",
  FAST_SECONDS,
  "Claim transactions (campaign batches and single calls), seconds"
)

/**
 * Refill latency: from the first call end that freed a slot of a campaign waiting at its limit to the
 * claim that filled it again. What the dispatcher's event-driven loop is for.
 */
export const refillDuration = Metric.histogram(
  "agentline_refill_duration_seconds",
  FAST_SECONDS,
  "From a freed slot of a campaign at its limit to the claim that refills it, seconds"
)

/** The label values of `callsInProgress` for a call. */
export const callLabels = (organizationId: number, campaignId: number | null) =>
  [["organization_id", String(organizationId)], ["campaign_id", campaignId === null ? "none" : String(campaignId)]] as const

/** `metric` with the labels given as pairs. */
export const withLabels = <Type, In, Out>(
  metric: Metric.Metric<Type, In, Out>,
  labels: ReadonlyArray<readonly [string, string]>
): Metric.Metric<Type, In, Out> => labels.reduce((tagged, [key, value]) => Metric.tagged(tagged, key, value), metric)

/** Records how long `self` took, in seconds (Effect's Clock), in `histogram` when it succeeds. */
export const timedSeconds = (histogram: Metric.Metric.Histogram<number>) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Clock.currentTimeMillis, (start) =>
    Effect.tap(self, () => Effect.flatMap(Clock.currentTimeMillis, (end) => Metric.update(histogram, (end - start) / 1000))))

// ------------------------------------------------------------------------------------------- webhooks

/** From an event's (or a webhook node's request's) creation to its delivery, retries included. */
export const webhookDeliveryLag = Metric.histogram(
  "agentline_webhook_delivery_lag_seconds",
  SLOW_SECONDS,
  "From a webhook event's creation to its delivery (2xx), seconds"
)

/** Failed webhook attempts; `will_retry="false"` when it was the last try (the delivery failed for good). */
export const webhookDeliveryFailures = Metric.counter("agentline_webhook_delivery_failures_total", {
  description: "Failed webhook delivery attempts (will_retry: whether another attempt is scheduled)",
  incremental: true
})

// ------------------------------------------------------------------------------------------- spans

/**
 * Span names. A call is one trace: `agentline.call` from its claim to the save of its run, with the
 * dial, each provider event, the media session and the save as children (the voice runtime adds its
 * turns and tool calls, see `@agentline/voice/TurnTelemetry`). Claims are batched, so each call's span
 * links to the claim span of its batch; webhook deliveries of the run join the call's trace when the
 * process still remembers it.
 */
export const SpanNames = {
  call: "agentline.call",
  claim: "agentline.dispatch.claim",
  dial: "agentline.call.dial",
  event: "agentline.call.event",
  media: "agentline.call.media",
  save: "agentline.call.save",
  webhook: "agentline.webhook.deliver"
} as const
