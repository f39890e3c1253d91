/**
 * Where the events of a call go when the process that hears them is not the one that placed it: the
 * process holding a configuration's connection (ARI's events WebSocket, held by one process of a
 * deployment under a lease) hears every process's calls and hands their events to its own dispatcher,
 * which applies them to the attempt in the database, as a status callback landing on any process is.
 *
 * The dispatcher registers itself when it is built (the provider connections that hand these events on
 * are built before it: the dispatcher's calls are placed through them); until then an event waits a
 * little, then is dropped with a warning.
 */
import { Deferred, Effect, Option } from "effect"
import type { AttemptId } from "@agentline/api/Ids"
import type { CallEvent } from "./TelephonyProvider.js"

export type HandleEvent = (attemptId: AttemptId, event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>

export class CallEventSink extends Effect.Service<CallEventSink>()("@agentline/core/CallEventSink", {
  effect: Effect.gen(function*() {
    const handler = yield* Deferred.make<HandleEvent>()
    return {
      register: (handle: HandleEvent) => Deferred.succeed(handler, handle),
      /** Whether a dispatcher takes events here (an application without one adopts no calls). */
      ready: Deferred.isDone(handler),
      deliver: (attemptId: AttemptId, event: CallEvent, options?: { readonly durable?: boolean }): Effect.Effect<void> =>
        Deferred.await(handler).pipe(
          Effect.timeout("10 seconds"),
          Effect.option,
          Effect.flatMap(Option.match({
            onNone: () => Effect.logWarning(`call event ${event.type} of attempt ${attemptId} dropped: no dispatcher takes events in this process`),
            onSome: (handle) => handle(attemptId, event, options)
          }))
        )
    } as const
  })
}) {}
