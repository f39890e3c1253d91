import { describe, expect, it } from "@effect/vitest"
import { FastCheck, Option } from "effect"
import type { Role } from "@agentline/api/users/User"
import { type Access, apply, type Change, isActiveAdmin, refusal } from "../../src/users/UserAccess.js"

const roles: ReadonlyArray<Role> = ["admin", "member"]
const changes: ReadonlyArray<Change> = [
  { _tag: "SetRole", role: "admin" },
  { _tag: "SetRole", role: "member" },
  { _tag: "Deactivate" },
  { _tag: "Reactivate" },
  { _tag: "Remove" }
]
const accesses: ReadonlyArray<Access> = roles.flatMap((role) => [true, false].map((active) => ({ role, active })))

describe("refusal, every case", () => {
  for (const target of accesses) {
    for (const change of changes) {
      for (const activeAdmins of [1, 2]) {
        for (const self of [true, false]) {
          const name = `${self ? "own" : "another's"} ${target.active ? "active" : "deactivated"} ${target.role}, ${change._tag}${
            "role" in change ? ` ${change.role}` : ""
          }, ${activeAdmins} active admin(s)`
          it(name, () => {
            const refused = refusal({ actorId: 1, target: { ...target, id: self ? 1 : 2 }, change, activeAdmins })
            const locksOut = self && (change._tag === "Deactivate" || change._tag === "Remove")
            const losesLastAdmin = isActiveAdmin(target) && activeAdmins === 1 &&
              Option.match(apply(target, change), { onNone: () => true, onSome: (after) => !isActiveAdmin(after) })
            expect(Option.map(refused, (e) => e._tag)).toEqual(
              locksOut ? Option.some("OwnAccount") : losesLastAdmin ? Option.some("LastAdmin") : Option.none()
            )
          })
        }
      }
    }
  }
})

/** One administrator's attempt: who acts, on whom, what. */
const step = FastCheck.record({
  actor: FastCheck.integer({ min: 0, max: 4 }),
  target: FastCheck.integer({ min: 0, max: 4 }),
  change: FastCheck.constantFrom(...changes)
})

describe("an organization under any sequence of changes", () => {
  it("keeps an active administrator, and every change that went through was made by one on another's access or their own role", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.array(FastCheck.constantFrom(...accesses), { minLength: 4, maxLength: 4 }),
        FastCheck.array(step, { maxLength: 60 }),
        (others, steps) => {
          // user 0 is an active administrator to begin with
          const users = new Map<number, Access>([[0, { role: "admin", active: true }], ...others.map((a, i) => [i + 1, a] as const)])
          for (const { actor, change, target } of steps) {
            const actorAccess = users.get(actor)
            const targetAccess = users.get(target)
            // only present active administrators act (the permission check), on present users (404 otherwise)
            if (actorAccess === undefined || !isActiveAdmin(actorAccess) || targetAccess === undefined) continue
            const activeAdmins = [...users.values()].filter(isActiveAdmin).length
            const refused = refusal({ actorId: actor, target: { ...targetAccess, id: target }, change, activeAdmins })
            if (Option.isSome(refused)) continue
            expect(actor === target && (change._tag === "Deactivate" || change._tag === "Remove")).toBe(false)
            Option.match(apply(targetAccess, change), { onNone: () => users.delete(target), onSome: (after) => users.set(target, after) })
            expect([...users.values()].filter(isActiveAdmin).length).toBeGreaterThanOrEqual(1)
          }
        }
      ),
      { numRuns: 500 }
    )
  })
})
