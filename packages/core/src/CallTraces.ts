/**
 * One trace per call: the `agentline.call` span of each call this process has in progress, so that what
 * happens to the call on other fibers (the dial, the provider's events, whether in-process or over HTTP,
 * the media session, the save of its run, its webhooks) is recorded as children of it rather than of
 * whatever request or loop happened to run it. A span that came from elsewhere (an HTTP request, the
 * claim's batch) is linked.
 *
 * Calls placed by another process, or before a restart, have no span here: their work is traced where it
 * runs, with the attempt's id as an attribute. Spans of calls still open when the process stops are ended
 * then (`handed_over`), so nothing is left unexported.
 */
import { Clock, Effect, Exit, Option, Tracer } from "effect"
import { SpanNames } from "./Telemetry.js"

/** Runs of recently ended calls whose span webhook deliveries can still join. */
const RECENT_RUNS = 10_000

export interface CallTraceInput {
  readonly attemptId: number
  readonly runId: number
  readonly organizationId: number
  readonly campaignId: number | null
  readonly provider: string
  readonly direction: "inbound" | "outbound"
}

export class CallTraces extends Effect.Service<CallTraces>()("@agentline/core/CallTraces", {
  scoped: Effect.gen(function*() {
    const open = new Map<number, Tracer.Span>()
    const recent = new Map<number, Tracer.Span>()

    /** Starts the call's span (a new trace), linked to the span that started it (the claim's batch, a request). */
    const start = (input: CallTraceInput) =>
      Effect.gen(function*() {
        if (open.has(input.attemptId)) return
        const current = yield* Effect.currentSpan.pipe(Effect.option)
        const span = yield* Effect.makeSpan(SpanNames.call, {
          root: true,
          kind: input.direction === "inbound" ? "server" : "client",
          links: Option.isSome(current) ? [{ _tag: "SpanLink", span: current.value, attributes: {} }] : [],
          attributes: {
            "agentline.attempt_id": input.attemptId,
            "agentline.run_id": input.runId,
            "agentline.organization_id": input.organizationId,
            ...(input.campaignId !== null ? { "agentline.campaign_id": input.campaignId } : {}),
            "agentline.provider": input.provider,
            "agentline.direction": input.direction
          }
        })
        open.set(input.attemptId, span)
        recent.delete(input.runId)
        recent.set(input.runId, span)
        if (recent.size > RECENT_RUNS) recent.delete(recent.keys().next().value!)
      })

    /** Ends the call's span once its run is saved, with the outcome. */
    const end = (attemptId: number, attributes: Record<string, unknown>) =>
      Effect.suspend(() => {
        const span = open.get(attemptId)
        if (span === undefined) return Effect.void
        open.delete(attemptId)
        for (const [key, value] of Object.entries(attributes)) span.attribute(key, value)
        return Effect.map(Clock.currentTimeNanos, (now) => span.end(now, Exit.void))
      })

    /**
     * `self` as a child span of the call's span when this process has it (linked to the span it would
     * otherwise have had), else as an ordinary span with the attempt as an attribute.
     */
    const within = (attemptId: number, name: string, attributes: Record<string, unknown> = {}) =>
    <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        const parent = open.get(attemptId)
        const all = { "agentline.attempt_id": attemptId, ...attributes }
        if (parent === undefined) return Effect.withSpan(self, name, { attributes: all })
        return Effect.flatMap(Effect.option(Effect.currentSpan), (current) =>
          Effect.withSpan(self, name, {
            parent,
            attributes: all,
            links: Option.isSome(current) ? [{ _tag: "SpanLink", span: current.value, attributes: {} }] : []
          }))
      })

    /** The span of the call whose run this is, while this process remembers it (webhook deliveries). */
    const ofRun = (runId: number | null): Option.Option<Tracer.Span> =>
      runId === null ? Option.none() : Option.fromNullable(recent.get(runId))

    // Calls still open when the process stops are handed over to other processes: their spans end here.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Clock.currentTimeNanos, (now) =>
        Effect.sync(() => {
          for (const span of open.values()) {
            span.attribute("agentline.handed_over", true)
            span.end(now, Exit.void)
          }
          open.clear()
        }))
    )

    return { start, end, within, ofRun } as const
  })
}) {}
