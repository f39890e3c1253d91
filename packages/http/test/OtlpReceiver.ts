/**
 * An in-process OpenTelemetry collector for the tests: an HTTP server on 127.0.0.1 that takes what the
 * server's exporter posts to `/v1/traces` (OTLP/HTTP, JSON) and keeps every span, with helpers to read a
 * call's trace.
 */
import * as NodeHttp from "node:http"

export interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly startTimeUnixNano?: string | number
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
  readonly links?: ReadonlyArray<{ readonly traceId: string; readonly spanId: string }>
}

export interface OtlpReceiver {
  /** The base URL (`OTEL_EXPORTER_OTLP_ENDPOINT`); spans go to `/v1/traces` under it. */
  readonly url: string
  readonly spans: ReadonlyArray<OtlpSpan>
  readonly close: () => Promise<void>
}

/** Collects the spans posted to `/v1/traces` (OTLP/HTTP JSON, as the server's exporter sends them). */
export const startOtlpReceiver = async (): Promise<OtlpReceiver> => {
  const spans: Array<OtlpSpan> = []
  const server = NodeHttp.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      if (req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
        for (const resource of body.resourceSpans ?? []) {
          for (const scope of resource.scopeSpans ?? []) spans.push(...(scope.spans ?? []))
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  return { url: `http://127.0.0.1:${port}`, spans, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** An attribute's value (OTLP wraps it as `{ stringValue }`, `{ intValue }`, ...). */
export const attribute = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes?.find((a) => a.key === key)?.value
  return value === undefined ? undefined : Object.values(value)[0]
}

/** Every span of a call's trace (the root is its `agentline.call`). */
export const traceOfAttempt = (spans: ReadonlyArray<OtlpSpan>, attemptId: number) => {
  const root = spans.find((s) => s.name === "agentline.call" && Number(attribute(s, "agentline.attempt_id")) === attemptId)
  return root === undefined ? undefined : { root, spans: spans.filter((s) => s.traceId === root.traceId) }
}
