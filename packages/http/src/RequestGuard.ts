/**
 * The first thing every request meets, before routing and decoding: the limits of `RequestLimits.ts`.
 *
 * - A body announced larger than its route allows (`Content-Length`) is refused with 413 at once,
 *   unread; a body without a length (chunked) is read only up to the limit, then refused the same way.
 *   Each refusal closes the connection, so the rest of the body is never read.
 * - A buffered body that nests too deep or holds a NUL is refused with 422 before any handler sees
 *   it, as are NULs in the path and the query. The handlers then get the body from memory.
 * - A body in another media type than its endpoint reads (a form or a multipart body sent to a JSON
 *   endpoint) is refused with 415 before it is read (`ApiRoutes.ts`).
 * - Upload bodies stream to their handler unread; any error answer there closes the connection too,
 *   so a refused upload (bad signature, too large) is not read to its end either.
 *
 * Reading stops without destroying the request: the platform's own capped reader destroys the
 * socket, which leaves no way to send the 413.
 */
import type { ValidationIssue } from "@agentline/api/Errors"
import { UploadSettings } from "@agentline/core/uploads/Uploads"
import { type HttpApi, HttpApiBuilder, type HttpApiGroup, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Chunk, Effect, Layer, Option, Stream } from "effect"
import * as NodeHttp from "node:http"
import * as ApiRoutes from "./ApiRoutes.js"
import * as Limits from "./RequestLimits.js"

type Read = { readonly _tag: "Body"; readonly bytes: Uint8Array } | { readonly _tag: "TooLarge" }

/** Reads a Node request body up to `maxBytes`; past it, stops (the socket stays open for the answer). */
const readNode = (source: NodeHttp.IncomingMessage, maxBytes: number) =>
  Effect.async<Read, unknown>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      stop()
      source.pause()
      resume(Effect.succeed({ _tag: "TooLarge" }))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed({ _tag: "Body", bytes: Buffer.concat(chunks) }))
    }
    const onError = (error: unknown) => {
      stop()
      resume(Effect.fail(error))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    return Effect.sync(stop)
  })

/** The same for any other server (embedding through web handlers): the body as a web stream. */
const readStream = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) =>
  request.stream.pipe(
    Stream.runFoldWhile(
      { chunks: Chunk.empty<Uint8Array>(), size: 0 },
      (state) => state.size <= maxBytes,
      (state, chunk) => ({ chunks: Chunk.append(state.chunks, chunk), size: state.size + chunk.length })
    ),
    Effect.map((state): Read =>
      state.size > maxBytes ? { _tag: "TooLarge" } : { _tag: "Body", bytes: Buffer.concat(Chunk.toArray(state.chunks)) }
    )
  )

const closing = { connection: "close" } as const

const tooLarge = (maxBytes: number) =>
  HttpServerResponse.unsafeJson({ detail: Limits.tooLargeDetail(maxBytes) }, { status: 413, headers: closing })

/** 422; `unread` when the body was not read, so the connection must close rather than read it. */
const invalid = (issues: ReadonlyArray<ValidationIssue>, unread: boolean) =>
  HttpServerResponse.unsafeJson({ detail: issues }, { status: 422, ...(unread ? { headers: closing } : {}) })

/** 415; the body is never read, so the connection closes. */
const unsupportedMedia = (detail: string) => HttpServerResponse.unsafeJson({ detail }, { status: 415, headers: closing })

/** A web request (embedding) says so itself; a Node one by its headers. */
const hasBody = (request: HttpServerRequest.HttpServerRequest, length: number | undefined) =>
  request.source instanceof Request
    ? request.source.body !== null
    : (length !== undefined && length > 0) || request.headers["transfer-encoding"] !== undefined

/** The request as the handlers will see it: same method, URL, headers and client address, body from memory. */
const withBody = (request: HttpServerRequest.HttpServerRequest, bytes: Uint8Array) => {
  const bodyAllowed = request.method !== "GET" && request.method !== "HEAD"
  const web = new Request(`http://localhost${request.url.startsWith("/") ? "" : "/"}${request.url}`, {
    method: request.method,
    ...(bodyAllowed ? { body: bytes as Uint8Array<ArrayBuffer> } : {})
  })
  const address = Option.getOrUndefined(request.remoteAddress)
  return HttpServerRequest.fromWeb(web).modify({
    url: request.url,
    headers: request.headers,
    ...(address !== undefined ? { remoteAddress: address } : {})
  })
}

export const layer = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(api: HttpApi.HttpApi<Id, Groups, E, R>) => {
  const routes = ApiRoutes.make(api)
  return Layer.unwrapEffect(Effect.map(UploadSettings, (settings) =>
  HttpApiBuilder.middleware(
    Effect.succeed((app) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const url = new URL(request.url, "http://localhost")
        const rule = Limits.bodyRule(request.method, url.pathname, settings.maxBytes)
        const length = Limits.declaredLength(request.headers["content-length"])
        if (length !== undefined && !(length <= rule.maxBytes)) return tooLarge(rule.maxBytes)

        const urlIssues = [...Limits.pathNulIssues(url.pathname), ...Limits.queryNulIssues(url.searchParams)]
        if (urlIssues.length > 0) return invalid(urlIssues, hasBody(request, length))

        const media = routes.find(request.method, url.pathname)?.route.bodyMedia
        if (media !== undefined && hasBody(request, length)) {
          const refused = ApiRoutes.unsupportedMedia(media, request.headers["content-type"])
          if (refused !== undefined) return unsupportedMedia(refused)
        }

        if (rule._tag === "Streamed") {
          const response = yield* app
          return response.status >= 400 ? HttpServerResponse.setHeaders(response, closing) : response
        }
        if (!hasBody(request, length)) return yield* app

        const source = request.source
        const read = yield* (source instanceof NodeHttp.IncomingMessage ? readNode(source, rule.maxBytes) : readStream(request, rule.maxBytes))
          .pipe(Effect.option)
        if (Option.isNone(read)) {
          return HttpServerResponse.unsafeJson({ detail: "The request body could not be read; send it again" }, {
            status: 400,
            headers: closing
          })
        }
        if (read.value._tag === "TooLarge") return tooLarge(rule.maxBytes)
        if (media === "multipart" && !Limits.multipartComplete(read.value.bytes, request.headers["content-type"])) {
          return HttpServerResponse.unsafeJson({
            detail: "The multipart body is incomplete (no boundary, or no closing boundary); send a well-formed multipart/form-data body"
          }, { status: 400 })
        }
        const issues = Limits.bodyIssues(new TextDecoder().decode(read.value.bytes), request.headers["content-type"])
        if (issues.length > 0) return invalid(issues, false)
        return yield* Effect.provideService(app, HttpServerRequest.HttpServerRequest, withBody(request, read.value.bytes))
      })
    ),
    { withContext: true }
  )))
}
