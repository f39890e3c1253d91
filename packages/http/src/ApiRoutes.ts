/**
 * What the API's routes take, read from the `HttpApi` definition: the methods each path answers to (a
 * known path with another method is a 405 naming them in `Allow`, not a 404) and the media type of each
 * endpoint's body (another one is a 415 before the body is read: the platform would otherwise decode a
 * form as if it were JSON, and fail on a malformed multipart body with a defect).
 *
 * Paths are matched by the router library the platform's own router uses, with the platform's options,
 * so "this path exists" means what routing means.
 */
import { HttpApi, type HttpApiGroup } from "@effect/platform"
import { Option, Schema } from "effect"
import * as FindMyWay from "find-my-way-ts"

/** The body an endpoint reads: JSON, or a multipart form; anything else (uploads' raw bytes) is not checked. */
export type BodyMedia = "json" | "multipart"

/** An endpoint's schemas (to decode a failed request again with every issue) and the body it reads. */
export interface Route {
  readonly path: Option.Option<Schema.Schema<unknown>>
  readonly urlParams: Option.Option<Schema.Schema<unknown>>
  readonly payload: Option.Option<Schema.Schema<unknown>>
  readonly bodyMedia: BodyMedia | undefined
}

export interface ApiRoutes {
  /** The endpoint at `method pathname` with its path parameters (decoded), if the API has one. */
  readonly find: (method: string, pathname: string) => { readonly route: Route; readonly params: Readonly<Record<string, string | undefined>> } | undefined
  /** The methods `pathname` answers to, sorted; empty when the API has no such path. */
  readonly methodsOf: (pathname: string) => ReadonlyArray<string>
}

const METHODS = ["DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"] as const

export const make = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): ApiRoutes => {
  // The platform router's defaults (HttpRouter over find-my-way-ts).
  const router = FindMyWay.make<Route>({
    ignoreTrailingSlash: true,
    ignoreDuplicateSlashes: true,
    caseSensitive: false,
    maxParamLength: 100
  })
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint, payloads }) {
      const kinds = [...payloads.entries()]
      const bodyMedia: BodyMedia | undefined = kinds.some(([contentType]) => contentType === "multipart/form-data")
        ? "multipart"
        : kinds.some(([, payload]) => payload.encoding.kind === "Json")
        ? "json"
        : undefined
      router.on(endpoint.method, endpoint.path, {
        path: Option.map(endpoint.pathSchema, (schema) => Schema.make(schema.ast)),
        urlParams: Option.map(endpoint.urlParamsSchema, (schema) => Schema.make(schema.ast)),
        payload: Option.map(endpoint.payloadSchema, (schema) => Schema.make(schema.ast)),
        bodyMedia
      })
    }
  })
  return {
    find: (method, pathname) => {
      const found = router.find(method.toUpperCase(), pathname)
      return found === undefined ? undefined : { route: found.handler, params: found.params }
    },
    methodsOf: (pathname) => METHODS.filter((method) => router.find(method, pathname) !== undefined)
  }
}

const mediaType = (contentType: string | undefined): string | undefined =>
  contentType === undefined ? undefined : contentType.split(";")[0]!.trim().toLowerCase()

/**
 * Why a request's body cannot be read by its endpoint (the 415 detail), or undefined when it can. A body
 * without a `Content-Type` is read as JSON, as before (clients of the reference rely on that).
 */
export const unsupportedMedia = (expected: BodyMedia, contentType: string | undefined): string | undefined => {
  const given = mediaType(contentType)
  if (expected === "json") {
    if (given === undefined || given === "" || given === "application/json") return undefined
    return `This endpoint takes a JSON body (Content-Type: application/json), not ${given}; send the body as JSON`
  }
  if (given === "multipart/form-data") return undefined
  return `This endpoint takes a multipart/form-data body, not ${given ?? "a body without a Content-Type"}; send the file as a multipart form`
}
