/**
 * Readiness and the graceful stop of the standalone server.
 *
 * - Liveness is `GET /api/v1/health` (the spec's health object): 200 while the process answers at all,
 *   draining included.
 * - Readiness is `GET /api/v1/health/ready`: 200 when this process should be given new work, else 503;
 *   the body lists each check (`database`: reachable; `migrations`: every migration of this version
 *   applied; `media`: new media sessions accepted, i.e. not draining). Outside the API (an operator's
 *   probe, not a client's call), like `/metrics`.
 * - On SIGTERM (`drainLayer`), readiness turns 503 first; then the dispatcher drains (no new calls, those
 *   in progress get `AGENTLINE_DISPATCHER_DRAIN_SECONDS` to end, the rest is handed over) while the
 *   server keeps answering: liveness, the carriers' callbacks and media streams of the calls still in
 *   progress, the API. Only then does the listener close.
 */
import { Dispatcher } from "@agentline/core/dispatcher/Dispatcher"
import { Migrations } from "@agentline/sql"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Option, Ref } from "effect"

export type CheckResult = "ok" | string

export interface ReadinessReport {
  readonly status: "ready" | "not_ready" | "draining"
  readonly checks: {
    readonly database: CheckResult
    readonly migrations: CheckResult
    readonly media: CheckResult
  }
}

/** How long the database may take to answer the probe's `SELECT 1`. */
const DATABASE_TIMEOUT = "2 seconds"

/** Whether this process is stopping; shared by the readiness route and the stop. */
export class Readiness extends Effect.Service<Readiness>()("@agentline/http/Readiness", {
  effect: Effect.gen(function*() {
    const draining = yield* Ref.make(false)

    /** The checks, run now. */
    const report = Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const isDraining = yield* Ref.get(draining)
      const database = yield* sql`SELECT 1`.pipe(
        Effect.timeout(DATABASE_TIMEOUT),
        Effect.as("ok" as CheckResult),
        Effect.catchAll((e) => Effect.succeed(`unreachable: ${e._tag === "TimeoutException" ? `no answer within ${DATABASE_TIMEOUT}` : e.message}`))
      )
      const migrations: CheckResult = database !== "ok"
        ? "unknown: the database is unreachable"
        : yield* Effect.map(Migrations.pending, (pending) =>
          pending.length === 0 ? "ok" : `not applied: ${pending.join(", ")} (run agentline migrate, or start the server to migrate)`)
      const media: CheckResult = isDraining ? "stopping: only the calls in progress keep their media streams" : "ok"
      const ready = database === "ok" && migrations === "ok" && media === "ok"
      return {
        status: isDraining ? "draining" : ready ? "ready" : "not_ready",
        checks: { database, migrations, media }
      } satisfies ReadinessReport as ReadinessReport
    })

    return {
      report,
      isDraining: Ref.get(draining),
      /** From now on readiness answers 503. */
      startDraining: Ref.set(draining, true)
    } as const
  })
}) {}

/** `GET /api/v1/health/ready`. */
export const routeLayer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const readiness = yield* Readiness
    const sql = yield* SqlClient.SqlClient
    yield* router.get(
      "/api/v1/health/ready",
      Effect.map(Effect.provideService(readiness.report, SqlClient.SqlClient, sql), (report) =>
        HttpServerResponse.unsafeJson(report, { status: report.status === "ready" ? 200 : 503 }))
    )
  })
)

/**
 * Built after the server serves, so released before it stops serving: at shutdown it turns readiness to
 * 503, then drains the dispatcher while requests are still answered.
 */
export const drainLayer = Layer.scopedDiscard(Effect.gen(function*() {
  const readiness = yield* Readiness
  const dispatcher = yield* Effect.serviceOption(Dispatcher)
  yield* Effect.addFinalizer(() =>
    Effect.gen(function*() {
      yield* readiness.startDraining
      yield* Effect.logInfo("Stopping: readiness answers 503; requests are still served while the calls in progress drain")
      if (Option.isSome(dispatcher)) yield* dispatcher.value.drain
      yield* Effect.logInfo("Drained: closing the listener")
    })
  )
}))
