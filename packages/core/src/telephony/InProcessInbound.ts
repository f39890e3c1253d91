/**
 * Incoming calls a provider learns of in-process rather than by an HTTP request: ARI announces a call
 * entering the Stasis application (`StasisStart`) on its events WebSocket, held open by `connect`.
 * The adapter hands it here as the `WebhookRequest` it would have posted, and it takes exactly the
 * route of `POST /api/v1/telephony/inbound/{provider}` (`InboundCalls.receive`: routing key, verify,
 * organization slot, run, `instructCall`); the answer document comes back.
 *
 * `InboundCalls` registers itself when it is built; until then (or in an application without the
 * inbound route) a call is answered as unavailable after a short wait.
 */
import { Deferred, Effect, Option } from "effect"
import type { WebhookRequest, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"

export type Receive = (provider: string, request: WebhookRequest) => Effect.Effect<WebhookResponse>

export class InProcessInbound extends Effect.Service<InProcessInbound>()("@agentline/core/InProcessInbound", {
  effect: Effect.gen(function*() {
    const receiver = yield* Deferred.make<Receive>()
    return {
      register: (receive: Receive) => Deferred.succeed(receiver, receive),
      /** The server's answer to an in-process incoming call; `None` when no inbound route is there. */
      deliver: (provider: string, request: WebhookRequest): Effect.Effect<Option.Option<WebhookResponse>> =>
        Deferred.await(receiver).pipe(
          Effect.timeout("10 seconds"),
          Effect.option,
          Effect.flatMap(Option.match({
            onNone: () => Effect.succeed(Option.none<WebhookResponse>()),
            onSome: (receive) => Effect.map(receive(provider, request), Option.some)
          }))
        )
    } as const
  })
}) {}
