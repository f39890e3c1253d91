/**
 * One place turns every failure into the wire error: `{"detail": ...}` with the error's status.
 *
 * - wire errors (`@agentline/api/Errors`, which handlers map domain errors to in `DomainErrors.ts`) →
 *   their status and `detail`;
 * - request decoding failures and malformed JSON → 422 listing every invalid field (see Validation);
 * - unknown routes → 404 JSON; a known path with another method → 405 with `Allow` (`ApiRoutes.ts`);
 * - a multipart body that cannot be read → 400 (413 past a part's limit);
 * - a read (GET, HEAD) that failed on storage is tried again (up to three times, 100/200/400 ms later) before anything is
 *   answered: a dropped connection fails the statements on it, and the pool has (or opens) others;
 * - anything else (defects, unexpected failures) → 500 `{"detail": "internal_error"}`, logged with its
 *   cause; nothing internal reaches the client.
 */
import { HttpApiBuilder, type HttpApi, type HttpApiError, type HttpApiGroup, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Cause, Effect, Option } from "effect"
import { STATUS } from "@agentline/api/Errors"
import { storageErrorIn } from "@agentline/core/Storage"
import * as ApiRoutes from "./ApiRoutes.js"
import * as Validation from "./Validation.js"

const json = (status: number, detail: unknown) => HttpServerResponse.unsafeJson({ detail }, { status })

const requestParts = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const url = new URL(request.url, "http://localhost")
    const query: Record<string, string | Array<string>> = {}
    for (const [key, value] of url.searchParams) {
      const existing = query[key]
      query[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
    }
    const body = yield* request.text.pipe(Effect.option)
    return { method: request.method, pathname: url.pathname, query, body: Option.getOrUndefined(body) }
  })

/**
 * A pause before the second try, in real time whatever the clock: connections that dropped together
 * with the one that failed are noticed by the pool (their termination arrives as an event) and are not
 * handed out for the second try.
 */
const poolNotices = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

/**
 * `app` run again when it was a read (nothing written, so safe to repeat) that failed on storage: up to
 * three more times, waiting 100, 200 and 400 ms (a loaded pool may take more than one wait to notice
 * that all its connections were dropped, and the first new connections may be dropped too).
 */
const readOnceMore = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) => {
  const attempt = (left: number, waitMillis: number): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.catchAllCause(app, (cause) =>
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        left > 0 && (request.method === "GET" || request.method === "HEAD") && Option.isSome(storageErrorIn(cause))
          ? Effect.logWarning("A read failed on storage; trying it once more", cause).pipe(
            Effect.zipRight(poolNotices(waitMillis)),
            Effect.zipRight(attempt(left - 1, waitMillis * 2))
          )
          : Effect.failCause(cause)
      ))
  return attempt(3, 100)
}

/** A field of a failure of any shape (failures and defects reach the handling untyped). */
const hasField = (value: unknown, key: string): value is object => typeof value === "object" && value !== null && key in value
const fieldOf = (value: unknown, key: string): unknown => (hasField(value, key) ? Reflect.get(value, key) : undefined)

const MULTIPART_TOO_LARGE = new Set(["FileTooLarge", "FieldTooLarge", "BodyTooLarge", "TooManyParts"])

export const layer = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(api: HttpApi.HttpApi<Id, Groups, E, R>) => {
  const routes = ApiRoutes.make(api)
  const revalidate = Validation.makeRevalidator(routes)
  return HttpApiBuilder.middleware(
    Effect.succeed((app) =>
      Effect.catchAllCause(readOnceMore(app), (cause) =>
        Effect.gen(function*() {
          // Failures first; a request body that could not be read surfaces as a defect in some paths.
          const failure = Option.orElse(Cause.failureOption(cause), () => Cause.dieOption(cause))
          if (Option.isSome(failure)) {
            const error: unknown = failure.value
            const tag = fieldOf(error, "_tag")
            const status = typeof tag === "string" && Object.hasOwn(STATUS, tag) ? STATUS[tag as keyof typeof STATUS] : undefined
            if (status !== undefined && hasField(error, "detail")) return json(status, fieldOf(error, "detail"))
            if (tag === "HttpApiDecodeError") {
              const request = yield* HttpServerRequest.HttpServerRequest
              const issues = revalidate(yield* requestParts(request))
              return json(422, issues.length > 0 ? issues : (error as HttpApiError.HttpApiDecodeError).issues.map((i) => ({
                loc: ["body", ...i.path.map(String)],
                msg: i.message,
                type: "value_error",
                input: null,
                ctx: {}
              })))
            }
            if (tag === "RequestError" && fieldOf(error, "reason") === "Decode") {
              const request = yield* HttpServerRequest.HttpServerRequest
              const parts = yield* requestParts(request)
              const issues = revalidate(parts)
              return json(422, issues.length > 0 ? issues : [Validation.malformedJson(fieldOf(error, "cause") ?? fieldOf(error, "description"))])
            }
            if (tag === "MultipartError") {
              const reason = String(fieldOf(error, "reason"))
              return MULTIPART_TOO_LARGE.has(reason)
                ? json(413, `The multipart body is over a limit of this endpoint (${reason}); send one smaller file`)
                : json(400, "The multipart body could not be read; send a well-formed multipart/form-data body")
            }
            if (tag === "RouteNotFound") {
              const request = yield* HttpServerRequest.HttpServerRequest
              const pathname = new URL(request.url, "http://localhost").pathname
              const allowed = routes.methodsOf(pathname)
              if (allowed.length > 0) {
                const allow = allowed.join(", ")
                return HttpServerResponse.unsafeJson(
                  { detail: `Method Not Allowed: ${pathname} answers to ${allow}, not ${request.method}` },
                  { status: 405, headers: { allow } }
                )
              }
            }
            if (tag === "RouteNotFound" || tag === "NotFound") return json(404, "Not Found")
          }
          if (Cause.isInterruptedOnly(cause)) return yield* Effect.failCause(cause)
          yield* Effect.logError("Unexpected failure while handling a request", cause)
          return json(500, "internal_error")
        })
      )
    ),
    { withContext: true }
  )
}
