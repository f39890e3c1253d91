import { Effect, Option } from "effect"
import { OrganizationNotFound } from "./Errors.js"
import type { Organization } from "@agentline/api/organizations/Organization"
import { OrganizationsRepo } from "./OrganizationsRepo.js"
import type { Principal } from "@agentline/api/Authentication"

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
          onNone: () => Effect.fail(new OrganizationNotFound({ organizationId })),
          onSome: (org): Effect.Effect<Organization> => Effect.succeed(org)
        })
      }
    )

    return { current, setConcurrentCallLimit, findByName: repo.findByName } as const
  })
}) {}
