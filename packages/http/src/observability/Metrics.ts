/**
 * `/metrics`: Effect's metrics (those of `@agentline/core/Telemetry`, the HTTP requests', the runtime's)
 * in the Prometheus text format. `@effect/opentelemetry`'s metric producer reads Effect's registry and
 * OpenTelemetry's Prometheus serializer writes it: one metrics system, nothing computed twice.
 *
 * Where it is served (docs/production.md):
 * - its own listener, `AGENTLINE_METRICS_HOST:AGENTLINE_METRICS_PORT` (default `127.0.0.1:9464`, so
 *   only this machine reaches it; `AGENTLINE_METRICS_PORT=off` turns it off). A port taken (a second
 *   process on the machine) is reported and the server runs without it;
 * - with `AGENTLINE_METRICS_TOKEN` set, the token is required there (`Authorization: Bearer <token>`),
 *   and `/metrics` is also served on the main port with the same token, for platforms that expose one
 *   port only. A listener on another interface than loopback requires the token.
 */
import { Metrics as EffectOtelMetrics, Resource } from "@effect/opentelemetry"
import { PrometheusSerializer } from "@opentelemetry/exporter-prometheus"
import { DatabasePool } from "@agentline/sql/Database"
import * as Telemetry from "@agentline/core/Telemetry"
import { type HttpApp, HttpApiBuilder, HttpMiddleware, HttpServerError, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Config, ConfigError, Context, Effect, Either, Layer, Metric, MetricBoundaries, Option, Redacted, Tracer } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import * as NodePerf from "node:perf_hooks"

// ------------------------------------------------------------------------------------- instruments

/** HTTP requests, by method, route template (`/api/v1/campaign/:campaign_id`) and status. */
export const httpRequestDuration = Metric.histogram(
  "agentline_http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]),
  "HTTP requests by method, route and status, seconds (a media WebSocket lasts its call)"
)

const gauge = (name: string, description: string) => Metric.gauge(name, { description })

/** The runtime's, named as Node's Prometheus clients name them, sampled at each scrape. */
export const runtime = {
  rss: gauge("process_resident_memory_bytes", "Resident set size, bytes"),
  heapUsed: gauge("nodejs_heap_size_used_bytes", "V8 heap in use, bytes"),
  heapTotal: gauge("nodejs_heap_size_total_bytes", "V8 heap allocated, bytes"),
  external: gauge("nodejs_external_memory_bytes", "Memory of C++ objects bound to JavaScript, bytes"),
  lagMean: gauge("nodejs_eventloop_lag_mean_seconds", "Event loop delay since the previous scrape: mean, seconds"),
  lagP99: gauge("nodejs_eventloop_lag_p99_seconds", "Event loop delay since the previous scrape: 99th percentile, seconds"),
  lagMax: gauge("nodejs_eventloop_lag_max_seconds", "Event loop delay since the previous scrape: maximum, seconds"),
  poolConnections: gauge("agentline_db_pool_connections", "PostgreSQL pool: connections open (state=total), idle, and queries waiting for one"),
  poolMax: gauge("agentline_db_pool_max_connections", "PostgreSQL pool: the most connections it opens")
} as const

// ------------------------------------------------------------------------------------------ render

/** Renders the registry in the Prometheus text format; samples the runtime's gauges first. */
export class PrometheusMetrics extends Effect.Service<PrometheusMetrics>()("@agentline/http/PrometheusMetrics", {
  scoped: Effect.gen(function*() {
    const producer = yield* EffectOtelMetrics.makeProducer.pipe(
      Effect.provide(Resource.layer({ serviceName: "agentline" }))
    )
    // No `otel_scope_name` label on every series: there is one scope, Effect's registry.
    const serializer = new PrometheusSerializer(undefined, false, undefined, false, true)
    const delay = NodePerf.monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    yield* Effect.addFinalizer(() => Effect.sync(() => delay.disable()))
    const pool = yield* DatabasePool

    const sample = Effect.suspend(() => {
      const memory = process.memoryUsage()
      const seconds = (nanos: number) => (Number.isFinite(nanos) ? nanos / 1e9 : 0)
      const lag = { mean: seconds(delay.mean), p99: seconds(delay.percentile(99)), max: seconds(delay.max) }
      delay.reset()
      const use = pool.use()
      return Effect.all([
        Metric.set(runtime.rss, memory.rss),
        Metric.set(runtime.heapUsed, memory.heapUsed),
        Metric.set(runtime.heapTotal, memory.heapTotal),
        Metric.set(runtime.external, memory.external),
        Metric.set(runtime.lagMean, lag.mean),
        Metric.set(runtime.lagP99, lag.p99),
        Metric.set(runtime.lagMax, lag.max),
        Option.match(use, {
          onNone: () => Effect.void,
          onSome: (u) =>
            Effect.all([
              Metric.set(Metric.tagged(runtime.poolConnections, "state", "total"), u.total),
              Metric.set(Metric.tagged(runtime.poolConnections, "state", "idle"), u.idle),
              Metric.set(Metric.tagged(runtime.poolConnections, "state", "waiting"), u.waiting),
              Metric.set(runtime.poolMax, u.max)
            ], { discard: true })
        })
      ], { discard: true })
    })

    const render = Effect.zipRight(
      sample,
      Effect.map(Effect.promise(() => producer.collect()), (collected) => serializer.serialize(collected.resourceMetrics))
    )
    return { render } as const
  })
}) {}

/** `text/plain; version=0.0.4`: the classic Prometheus exposition format. */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

// -------------------------------------------------------------------------------------- settings

export interface MetricsSettings {
  /** The metrics listener's port; none: no listener of its own. */
  readonly port: Option.Option<number>
  readonly host: string
  readonly token: Option.Option<Redacted.Redacted>
}

const isLoopback = (host: string) => host === "localhost" || host === "::1" || /^127\./.test(host)

export const settingsConfig: Config.Config<MetricsSettings> = Config.all({
  port: Config.string("AGENTLINE_METRICS_PORT").pipe(
    Config.withDefault("9464"),
    Config.mapOrFail((value) => {
      if (value === "off") return Either.right(Option.none<number>())
      const port = Number(value)
      return Number.isInteger(port) && port >= 1 && port <= 65535
        ? Either.right(Option.some(port))
        : Either.left(ConfigError.InvalidData(["AGENTLINE_METRICS_PORT"], "must be a port (1-65535) or off"))
    })
  ),
  host: Config.string("AGENTLINE_METRICS_HOST").pipe(Config.withDefault("127.0.0.1")),
  token: Config.option(Config.redacted("AGENTLINE_METRICS_TOKEN"))
}).pipe(
  Config.validate({
    message: "AGENTLINE_METRICS_HOST is not a loopback address: set AGENTLINE_METRICS_TOKEN too, or the metrics are open to the network",
    validation: (s) => Option.isNone(s.port) || isLoopback(s.host) || Option.isSome(s.token)
  })
)

/** Whether the request carries the token (compared in constant time); true when no token is set. */
export const authorized = (token: Option.Option<Redacted.Redacted>, authorization: string | undefined): boolean => {
  if (Option.isNone(token)) return true
  const expected = Buffer.from(`Bearer ${Redacted.value(token.value)}`)
  const given = Buffer.from(authorization ?? "")
  return given.length === expected.length && NodeCrypto.timingSafeEqual(given, expected)
}

// ------------------------------------------------------------------------------------- serving

/**
 * The metrics' own listener (`node:http`, outside the API: it never shares the API's limits, logs or
 * traces). A port in use is reported and skipped.
 */
export const listenerLayer = (settings: MetricsSettings): Layer.Layer<never, never, PrometheusMetrics> =>
  Option.match(settings.port, {
    onNone: () => Layer.empty,
    onSome: (port) =>
      Layer.scopedDiscard(Effect.gen(function*() {
        const metrics = yield* PrometheusMetrics
        const runtime = yield* Effect.runtime<never>()
        const server = NodeHttp.createServer((req, res) => {
          if (req.url?.split("?")[0] !== "/metrics") {
            res.writeHead(404, { "content-type": "text/plain" }).end("Not found: the metrics are at /metrics\n")
            return
          }
          if (!authorized(settings.token, req.headers.authorization)) {
            res.writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" }).end("Unauthorized\n")
            return
          }
          Effect.runPromise(Effect.provide(metrics.render, runtime.context)).then(
            (text) => res.writeHead(200, { "content-type": CONTENT_TYPE }).end(text),
            () => res.writeHead(500).end()
          )
        })
        const listening = yield* Effect.async<boolean>((resume) => {
          server.once("error", (error) => resume(Effect.as(Effect.logWarning(`Metrics not served on ${settings.host}:${port}: ${error.message} (set AGENTLINE_METRICS_PORT to a free port, or off)`), false)))
          server.listen(port, settings.host, () => resume(Effect.succeed(true)))
        })
        if (!listening) return
        yield* Effect.logInfo(`Metrics at http://${settings.host}:${port}/metrics${Option.isSome(settings.token) ? " (bearer token required)" : ""}`)
        yield* Effect.addFinalizer(() => Effect.async<void>((resume) => void server.close(() => resume(Effect.void))))
      }))
  })

/** `/metrics` on the main port, when a token protects it (else it is not there: 404). */
export const routeLayer = (settings: MetricsSettings) =>
  Option.isNone(settings.token) ? Layer.empty : HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const metrics = yield* PrometheusMetrics
      yield* router.get(
        "/metrics",
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (!authorized(settings.token, request.headers.authorization)) {
            return HttpServerResponse.text("Unauthorized\n", { status: 401, headers: { "www-authenticate": "Bearer" } })
          }
          return HttpServerResponse.text(yield* metrics.render, { contentType: CONTENT_TYPE })
        })
      )
    })
  )

// ------------------------------------------------------------------------------ HTTP request metric

/**
 * A stand-in parent span for requests the tracer skips (URLs carrying credentials, see `RequestLog`):
 * the router writes the matched route on the current span, and this one only remembers it. Nothing under
 * such a request is traced, so nothing is parented to it.
 */
const routeProbe = (): Tracer.Span => {
  const attributes = new Map<string, unknown>()
  return {
    _tag: "Span",
    name: "http.route.probe",
    spanId: "0000000000000000",
    traceId: "00000000000000000000000000000000",
    parent: Option.none(),
    context: Context.empty(),
    status: { _tag: "Started", startTime: 0n },
    attributes,
    links: [],
    sampled: false,
    kind: "server",
    end: () => {},
    attribute: (key, value) => void attributes.set(key, value),
    event: () => {},
    addLinks: () => {}
  }
}

/** Records each request's duration with its route template and status (`agentline_http_request_duration_seconds`). */
export const httpMiddleware = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest>((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const start = performance.now()
    const traced = !fiber.getFiberRef(HttpMiddleware.currentTracerDisabledWhen)(request)
    const current = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
    const span = traced && Option.isSome(current) && current.value._tag === "Span" ? current.value : routeProbe()
    const run = span.name === "http.route.probe" ? Effect.withParentSpan(app, span) : app
    return Effect.onExit(run, (exit) => {
      const status = exit._tag === "Success" ? exit.value.status : HttpServerError.causeResponseStripped(exit.cause)[0].status
      const route = span.attributes.get("http.route")
      return Metric.update(
        Telemetry.withLabels(httpRequestDuration, [
          ["method", request.method],
          ["route", typeof route === "string" ? route : "unmatched"],
          ["status", String(status)]
        ]),
        (performance.now() - start) / 1000
      )
    })
  })
