/**
 * The server's log lines. `AGENTLINE_LOG_FORMAT=json` writes one JSON object per line (for log
 * shippers): `timestamp`, `level`, `message`, the line's annotations as fields of their own (`run_id`,
 * `attempt_id`, `campaign_id`, `organization_id` on a call's lines; `http.method`, `http.url`,
 * `http.status` on the request log), `cause` for failures; `text` (the default) keeps Effect's logfmt-like
 * lines. When traces are exported (`Tracing.ts`), every line written inside a span carries its
 * `trace_id` and `span_id`, in both formats.
 *
 * Secrets stay out by construction: credentials are `Redacted` (printed `<redacted>`), URLs with a
 * credential are logged redacted (`RequestLog.ts`), and adapters word their errors without credentials;
 * `Observability.test.ts` greps a whole server run's output for the test's secrets.
 */
import { Config, Context, Effect, FiberRef, FiberRefs, HashMap, HashSet, Layer, Logger, LogLevel, Option, Tracer } from "effect"
import { TracingExported } from "./Tracing.js"

export type LogFormat = "text" | "json"

export const formatConfig: Config.Config<LogFormat> = Config.literal("text", "json")("AGENTLINE_LOG_FORMAT").pipe(
  Config.withDefault("text" as const)
)

/** An all-zero trace id is no trace (W3C): the stand-in span of an untraced request (`Metrics.ts`). */
const INVALID_TRACE_ID = /^0+$/

/** The trace and span the line was written in, if any. */
const traceOf = (context: FiberRefs.FiberRefs): Option.Option<{ readonly trace_id: string; readonly span_id: string }> =>
  Option.map(
    Option.filter(
      Context.getOption(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan),
      (span) => !INVALID_TRACE_ID.test(span.traceId)
    ),
    (span) => ({ trace_id: span.traceId, span_id: span.spanId })
  )

const stringify = (line: Record<string, unknown>): string => {
  try {
    return JSON.stringify(line, (_, value) => (typeof value === "bigint" ? value.toString() : value))
  } catch {
    return JSON.stringify({ timestamp: line.timestamp, level: line.level, message: String(line.message) })
  }
}

/** One JSON object per line on standard output. */
export const jsonLogger = (withTraceIds: boolean) =>
  Logger.make((options) => {
    const line = Logger.structuredLogger.log(options)
    const spans = Object.keys(line.spans).length > 0 ? { spans: line.spans } : {}
    globalThis.console.log(stringify({
      timestamp: line.timestamp,
      level: line.logLevel,
      message: line.message,
      ...line.annotations,
      ...(withTraceIds ? Option.getOrElse(traceOf(options.context), () => ({})) : {}),
      ...(line.cause !== undefined ? { cause: line.cause } : {}),
      ...spans,
      fiber_id: line.fiberId
    }))
  })

/** `logger` with `trace_id` and `span_id` annotations on the lines written inside a span. */
const withTraceIds = <M, O>(logger: Logger.Logger<M, O>): Logger.Logger<M, O> =>
  Logger.mapInputOptions(logger, (options) =>
    Option.match(traceOf(options.context), {
      onNone: () => options,
      onSome: (ids) => ({
        ...options,
        annotations: HashMap.set(HashMap.set(options.annotations, "trace_id", ids.trace_id), "span_id", ids.span_id)
      })
    }))

/**
 * The loggers for `format`, instead of whatever was there (`NodeRuntime.runMain` adds its pretty logger):
 * JSON alone, or the text loggers as they were with trace ids. Provide it after the tracing layer (it asks
 * whether traces are exported).
 */
export const layer = (format: LogFormat): Layer.Layer<never> =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const exportedTo = yield* TracingExported
    const exported = Option.isSome(exportedTo)
    const loggers = yield* FiberRef.get(FiberRef.currentLoggers)
    if (format === "json" || exported) {
      yield* Effect.locallyScoped(
        FiberRef.currentLoggers,
        format === "json" ? HashSet.make(jsonLogger(exported)) : HashSet.map(loggers, withTraceIds)
      )
    }
    if (exported) yield* Effect.logInfo(`Traces are exported over OTLP to ${exportedTo.value}`)
  }))

/**
 * From `AGENTLINE_LOG_FORMAT`, and `AGENTLINE_LOG_LEVEL` (default `Info`; `Debug` adds a line per call's
 * end, with the call's ids).
 */
export const layerConfig: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.map(
    Config.all({ format: formatConfig, level: Config.logLevel("AGENTLINE_LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info)) }),
    ({ format, level }) => Layer.merge(layer(format), Logger.minimumLogLevel(level))
  )
).pipe(Layer.orDie)
