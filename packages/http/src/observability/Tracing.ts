/**
 * Traces out of the process: Effect's spans (every `Effect.fn`, `withSpan`, SQL statement, HTTP request,
 * and the call traces of `@agentline/core/CallTraces`) go to an OpenTelemetry collector over OTLP/HTTP
 * (JSON), through `@effect/opentelemetry` and OpenTelemetry's own exporter. Off unless the standard
 * variables say where to send them: `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`);
 * the exporter reads the rest itself (`OTEL_EXPORTER_OTLP_HEADERS`, `_TIMEOUT`, `_COMPRESSION`,
 * certificates), the provider the sampler (`OTEL_TRACES_SAMPLER`, `_ARG`) and the resource its name and
 * attributes (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`). `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn it off.
 */
import { NodeSdk } from "@effect/opentelemetry"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { BatchSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { Config, Context, Effect, Layer, Option } from "effect"
import { withoutCredentials } from "../voice/VoiceReadiness.js"

export interface TracingSettings {
  /** Where spans go (the traces endpoint as the exporter resolves it), or none: tracing is off. */
  readonly endpoint: Option.Option<string>
  /** `OTEL_SERVICE_NAME`, default `agentline`. */
  readonly serviceName: string
}

/**
 * Where spans are exported (credentials removed), if they are: the logs write trace ids only when they
 * lead somewhere, and say where once the log format is in place.
 */
export class TracingExported extends Context.Reference<TracingExported>()("@agentline/http/TracingExported", {
  defaultValue: (): Option.Option<string> => Option.none()
}) {}

export const settingsConfig: Config.Config<TracingSettings> = Config.all({
  endpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_ENDPOINT")),
  tracesEndpoint: Config.option(Config.string("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")),
  disabled: Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporter: Config.string("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp")),
  serviceName: Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("agentline"))
}).pipe(Config.map(({ disabled, endpoint, exporter, serviceName, tracesEndpoint }) => ({
  serviceName,
  endpoint: disabled || exporter.split(",").map((e) => e.trim()).includes("none")
    ? Option.none()
    : Option.orElse(tracesEndpoint, () => Option.map(endpoint, (base) => `${base.replace(/\/+$/, "")}/v1/traces`))
})))

/**
 * The tracer for `settings`: OTLP export in batches (flushed when the layer closes, at shutdown), or
 * Effect's own in-memory tracer when tracing is off. Provides `TracingExported`.
 */
export const layer = (settings: TracingSettings, serviceVersion: string) =>
  Option.match(settings.endpoint, {
    onNone: () => Layer.empty,
    onSome: (endpoint) =>
      Layer.mergeAll(
        NodeSdk.layer(() => ({
          // The exporter reads OTEL_EXPORTER_OTLP_* itself; the resolved URL is only given so that the
          // log line below and the exporter agree.
          spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: endpoint })),
          resource: { serviceName: settings.serviceName, serviceVersion }
        })),
        Layer.succeed(TracingExported, Option.some(withoutCredentials(endpoint)))
      )
  })

/** From the environment (see the module's comment). */
export const layerConfig = (serviceVersion: string) =>
  Layer.unwrapEffect(Effect.map(settingsConfig, (settings) => layer(settings, serviceVersion))).pipe(Layer.orDie)
