import { Effect, Option, Schema } from "effect"
import { NotFound } from "../Errors.js"
import { MAX_CONCURRENT_CALL_LIMIT, type Organization } from "./Organization.js"
import { OrganizationsRepo } from "./OrganizationsRepo.js"
import type { Principal } from "./Principal.js"

export const ConcurrencyLimitUpdate = Schema.Struct({
  concurrent_call_limit: Schema.Int.pipe(
    Schema.between(1, MAX_CONCURRENT_CALL_LIMIT, {
      message: () => `concurrent_call_limit must be an integer between 1 and ${MAX_CONCURRENT_CALL_LIMIT}`
    })
  )
})

export class Organizations extends Effect.Service<Organizations>()("@agentline/core/Organizations", {
  effect: Effect.gen(function*() {
    const repo = yield* OrganizationsRepo

    const current = Effect.fn("Organizations.current")(function*(principal: Principal) {
      return yield* repo.findById(principal.organizationId).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.die(new Error(`organization ${principal.organizationId} of an authenticated caller is missing`)),
          onSome: Effect.succeed
        }))
      )
    })

    const setConcurrentCallLimit = Effect.fn("Organizations.setConcurrentCallLimit")(
      function*(organizationId: number, limit: number) {
        const updated = yield* repo.setConcurrentCallLimit(organizationId, limit)
        return yield* Option.match(updated, {
          onNone: () => Effect.fail(new NotFound({ detail: "Organization not found" })),
          onSome: (org): Effect.Effect<Organization> => Effect.succeed(org)
        })
      }
    )

    return { current, setConcurrentCallLimit, findByName: repo.findByName } as const
  })
}) {}
