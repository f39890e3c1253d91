/**
 * The request log: one line per response, as `HttpMiddleware.logger` writes it, but with the URL
 * stripped of credentials. A signed upload URL carries its signature in the query and a public
 * download link its token in the path; either, copied from a log, would let anyone use it. The same
 * requests are kept out of HTTP tracing spans, which record the full URL.
 */
import { HttpMiddleware, HttpServerError, HttpServerRequest } from "@effect/platform"
import { Effect, FiberRef, Layer, Option } from "effect"

const REDACTED = "REDACTED"

/** Query parameters whose values are never credentials; every other value is logged as REDACTED. */
const PLAIN_QUERY_PARAMETERS = new Set([
  "expires",
  "include_archived",
  "limit",
  "page",
  "sort_by",
  "sort_order",
  "status",
  "buffer"
])

/** `<run id>.<expiry>.<signature>`: the run and expiry help reading a log; the signature goes. */
const DOWNLOAD_TOKEN = /(\/public\/download\/workflow\/)([^/?]*)/

/** The URL (path and query, as received) without its credentials. */
export const redactUrl = (url: string): string => {
  const queryStart = url.indexOf("?")
  const path = (queryStart < 0 ? url : url.slice(0, queryStart)).replace(DOWNLOAD_TOKEN, (_, prefix: string, token: string) =>
    `${prefix}${[...token.split(".").slice(0, 2), REDACTED].join(".")}`)
  if (queryStart < 0) return path
  const query = new URLSearchParams(url.slice(queryStart + 1))
  const redacted = new URLSearchParams()
  for (const [name, value] of query) redacted.append(name, PLAIN_QUERY_PARAMETERS.has(name) ? value : REDACTED)
  const rendered = redacted.toString()
  return rendered === "" ? path : `${path}?${rendered}`
}

/** Whether a request's URL carries a credential that `redactUrl` would remove. */
export const carriesCredential = (url: string): boolean => redactUrl(url) !== url

/** The logging middleware for `HttpApiBuilder.serve` (`HttpMiddleware.logger` with redacted URLs). */
export const middleware = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    Effect.flatMap(Effect.exit(app), (exit) =>
      Effect.flatMap(FiberRef.get(HttpMiddleware.loggerDisabled), (disabled) => {
        if (disabled) return exit
        const [response, cause] = exit._tag === "Success"
          ? [exit.value, Option.none()]
          : HttpServerError.causeResponseStripped(exit.cause)
        return Effect.zipRight(
          Effect.annotateLogs(Effect.log(Option.getOrElse(cause, () => "Sent HTTP response")), {
            "http.method": request.method,
            "http.url": redactUrl(request.url),
            "http.status": response.status
          }),
          exit
        )
      })))
)

/** Keeps requests whose URL carries a credential out of HTTP tracing spans (they record `url.full`). */
export const untracedCredentials: Layer.Layer<never> = Layer.scopedDiscard(
  Effect.flatMap(FiberRef.get(HttpMiddleware.currentTracerDisabledWhen), (disabledBefore) =>
    Effect.locallyScoped(
      HttpMiddleware.currentTracerDisabledWhen,
      (request: HttpServerRequest.HttpServerRequest) => disabledBefore(request) || carriesCredential(request.url)
    ))
)
