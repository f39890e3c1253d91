/**
 * CORS for the public embed (`/api/v1/public/embed/...`), whose callers are other websites' pages.
 * It runs before the server-wide CORS middleware and answers for these paths only:
 *
 * - a preflight of `init` (a JSON POST) is granted to any origin: the token travels in the body, and the
 *   POST itself refuses an origin its token does not allow;
 * - a preflight of the chat's routes (`chat/{session_token}[/messages|/end]`) is granted to any origin: the
 *   handlers refuse a page other than the one that opened the session;
 * - a preflight of `config/{token}` is granted only to an origin the token allows now (403 otherwise);
 * - every answer names the requesting origin (`Access-Control-Allow-Origin: <origin>`, `Vary: Origin`),
 *   errors included, so the widget can read why it was refused. Data comes back only to allowed
 *   origins: the handlers check the `Origin` header themselves. No credentials are ever allowed.
 */
import { Embeds } from "@agentline/core/embed/Embeds"
import { HttpApiBuilder, HttpApp, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

export const PREFIX = "/api/v1/public/embed/"
const MAX_AGE = "86400"

const allowOrigin = (origin: string) => ({ "access-control-allow-origin": origin, vary: "Origin" })

const preflight = (origin: string, methods: string) =>
  HttpServerResponse.empty({
    status: 204,
    headers: {
      ...allowOrigin(origin),
      "access-control-allow-methods": methods,
      "access-control-allow-headers": "Content-Type",
      "access-control-max-age": MAX_AGE
    }
  })

/** A path segment decoded; `undefined` when its escapes are malformed (no token has such a value). */
const decodedSegment = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

export const layer = HttpApiBuilder.middleware(
  Effect.map(Embeds, (embeds) => (app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = new URL(request.url, "http://localhost").pathname
      if (!path.startsWith(PREFIX)) return yield* app
      const origin = request.headers["origin"]
      const requested = request.headers["access-control-request-method"]?.toUpperCase()
      if (request.method === "OPTIONS" && origin !== undefined && requested !== undefined) {
        const rest = path.slice(PREFIX.length)
        if (rest === "init") return requested === "POST" ? preflight(origin, "POST, OPTIONS") : HttpServerResponse.empty({ status: 405 })
        // The chat's routes carry a session token, whose requests must come from the page that opened it (checked by the handlers).
        if (/^chat\/[^/]+(\/messages|\/end)?$/.test(rest)) {
          return requested === "GET" || requested === "POST" ? preflight(origin, "GET, POST, OPTIONS") : HttpServerResponse.empty({ status: 405 })
        }
        if (rest.startsWith("config/") && !rest.slice("config/".length).includes("/")) {
          if (requested !== "GET") return HttpServerResponse.empty({ status: 405 })
          const token = decodedSegment(rest.slice("config/".length))
          return token !== undefined && (yield* embeds.allows(token, origin))
            ? preflight(origin, "GET, OPTIONS")
            : HttpServerResponse.empty({ status: 403 })
        }
        return HttpServerResponse.empty({ status: 404 })
      }
      if (origin === undefined) return yield* app
      // Registered after the server-wide CORS middleware's own handler (which says `*`), so it has the last word.
      return yield* Effect.ensuring(
        app,
        HttpApp.appendPreResponseHandler((_, response) => Effect.succeed(HttpServerResponse.setHeaders(response, allowOrigin(origin))))
      )
    })
  )
)
