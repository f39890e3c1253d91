/**
 * Web calls (docs/web-calls.md): `POST /api/v1/workflow/{id}/web-call` makes the call's run and token;
 * `GET /api/v1/web-calls/{token}` (WebSocket) is the call. A wrong, reused or expired token is
 * refused (403) before the upgrade, as a media stream's is.
 */
import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { WebCalls } from "@agentline/core/web-calls/WebCalls"
import { WIRE_SAMPLE_RATE } from "@agentline/core/web-calls/WebCallWire"
import { HttpApiBuilder, HttpRouter, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { publicRequestUrl } from "../calls/Http.js"
import { wire } from "../DomainErrors.js"
import { ServerConfig } from "../ServerConfig.js"
import { serveWebSocket } from "../telephony-webhooks/Routes.js"

/** The WebSocket path of a token. */
export const webCallPath = (token: string) => `/api/v1/web-calls/${token}`

export const WebCallsLive = HttpApiBuilder.group(AgentlineApi, "webCalls", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* WebCalls
    const { publicUrl } = yield* ServerConfig
    return handlers.handle("create", ({ path, payload }) =>
      Effect.flatMap(CurrentPrincipal, (principal) =>
        wire(calls.create(principal, path.workflow_id, payload)).pipe(
          Effect.map((created) => ({
            workflow_run_id: created.run.id,
            token: created.token,
            websocket_url: publicRequestUrl(publicUrl, webCallPath(created.token)).replace(/^http/, "ws"),
            websocket_path: webCallPath(created.token),
            expires_at: created.expiresAt,
            sample_rate: WIRE_SAMPLE_RATE,
            encoding: "pcm_s16le" as const
          }))
        )))
  }))

const refuse = (status: number, message: string) => HttpServerResponse.unsafeJson({ detail: message }, { status })

const socketRoute = Effect.gen(function*() {
  const calls = yield* WebCalls
  const params = yield* HttpRouter.params
  const run = yield* calls.open(params.token ?? "")
  if (run._tag === "None") return refuse(403, "Invalid web call token")
  return yield* serveWebSocket("A web call is a WebSocket", (connection) => calls.serve(run.value, connection))
})

/** The web call's WebSocket route, added to the API's router. */
export const routeLayer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const context = yield* Effect.context<WebCalls>()
    yield* router.get("/api/v1/web-calls/:token", Effect.provide(socketRoute, context))
  })
)
