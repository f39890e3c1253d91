import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { PermissionDenied } from "../../src/organizations/Errors.js"
import { check, type Permission, permissions, permits } from "../../src/organizations/Permissions.js"
import { acting } from "../../src/organizations/Principal.js"

const all = Object.keys(permissions) as ReadonlyArray<Permission>

describe("permits", () => {
  it.each(all)("%s: admins yes, members no", (permission) => {
    expect(permits("admin", permission)).toBe(true)
    expect(permits("member", permission)).toBe(false)
  })

  it("names every permission the docs list", () => {
    expect([...all].sort()).toEqual(["manageDoNotCall", "manageLimits", "manageOthersApiKeys", "manageTelephony", "manageUsers", "reactivateApiKeys"])
  })
})

describe("check", () => {
  const member = acting({ id: 7, organization_id: 3, email: "m@x.test", role: "member" })
  const admin = { ...member, role: "admin" as const }

  it.effect("a member is refused with a 403 naming what needs which role", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(check(member, "manageTelephony"))
      expect(exit).toEqual(Exit.fail(new PermissionDenied({
        what: "Changing telephony configurations and phone numbers",
        required: "admin",
        role: "member"
      })))
      const refused = yield* Effect.flip(check(member, "manageTelephony"))
      expect(refused.message).toBe(
        "Changing telephony configurations and phone numbers needs the admin role (your role is member); " +
          "ask an administrator of your organization"
      )
    }))

  it.effect("an admin passes with its principal", () =>
    Effect.gen(function*() {
      expect(yield* check(admin, "manageUsers")).toBe(admin)
    }))
})
