/**
 * Managing users (issue 26): administrators list a user, change roles, deactivate and reactivate,
 * remove, and reset passwords. The organization always keeps an active administrator; nobody locks
 * themselves out; a deactivated user's sessions end and their login and API keys are refused; another
 * organization's users are not found (docs/security.md, "Users").
 */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import { Users } from "@agentline/core/users/Users"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const login = (email: string, password: string) => call("POST", "/api/v1/auth/login", { body: { email, password } })

/** A user of the organization with their password chosen, a login session and an API key. */
const addUser = (org: { readonly name: string; readonly admin: { readonly organization_id: number } }, name: string, role: "admin" | "member") =>
  Effect.gen(function*() {
    const email = `${name}@${org.name}.test`
    const password = `password-of-${name}`
    const user = yield* (yield* Users).create({ email, password, role, organization: { id: org.admin.organization_id }, mustChangePassword: false })
    const key = yield* (yield* ApiKeys).create(acting(user), `${name}'s key`)
    const session = yield* login(email, password)
    expect(session.status).toBe(200)
    return { user, email, password, apiKey: key.api_key, apiKeyId: key.id, token: session.body.token as string }
  }).pipe(Effect.orDie)

/** An organization with its admin logged in (a session), besides the admin's API key. */
const seed = Effect.gen(function*() {
  const org = yield* seedOrganization()
  const session = yield* login(org.admin.email, "initial-password")
  expect(session.status).toBe(200)
  return { ...org, adminToken: session.body.token as string }
})

const expectStatus = (reply: Reply, status: number) => expect(reply.status, JSON.stringify(reply.body)).toBe(status)

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Users management [${dialect}]`, (it) => {
    it.effect("an admin reads a user and changes roles; the new role holds at once for sessions and API keys", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const ada = yield* addUser(org, "ada", "member")
        const one = yield* call("GET", `/api/v1/users/${ada.user.id}`, { apiKey: org.apiKey })
        expectStatus(one, 200)
        expect(one.body).toMatchObject({ id: ada.user.id, email: ada.email, role: "member", is_active: true, deactivated_at: null })
        expect(one.body).not.toHaveProperty("password_hash")

        expectStatus(yield* call("GET", "/api/v1/users", { apiKey: ada.apiKey }), 403)
        const promoted = yield* call("PUT", `/api/v1/users/${ada.user.id}/role`, { token: org.adminToken, body: { role: "admin" } })
        expectStatus(promoted, 200)
        expect(promoted.body.role).toBe("admin")
        // her existing session and key act with the new role right away
        expectStatus(yield* call("GET", "/api/v1/users", { token: ada.token }), 200)
        expectStatus(yield* call("GET", "/api/v1/users", { apiKey: ada.apiKey }), 200)

        const demoted = yield* call("PUT", `/api/v1/users/${ada.user.id}/role`, { apiKey: org.apiKey, body: { role: "member" } })
        expectStatus(demoted, 200)
        expect(demoted.body.role).toBe("member")
        expectStatus(yield* call("GET", "/api/v1/users", { apiKey: ada.apiKey }), 403)
        const invalid = yield* call("PUT", `/api/v1/users/${ada.user.id}/role`, { apiKey: org.apiKey, body: { role: "owner" } })
        expectStatus(invalid, 422)
      }))

    it.effect("the last active administrator cannot be demoted, deactivated or removed, and no admin locks themselves out", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const self = org.admin.id
        const demoteSelf = yield* call("PUT", `/api/v1/users/${self}/role`, { token: org.adminToken, body: { role: "member" } })
        expectStatus(demoteSelf, 409)
        expect(demoteSelf.body.detail).toMatch(/^Cannot make a member the organization's last active administrator: make another user an administrator first/)
        const deactivateSelf = yield* call("POST", `/api/v1/users/${self}/deactivate`, { token: org.adminToken })
        expectStatus(deactivateSelf, 409)
        expect(deactivateSelf.body.detail).toBe("You cannot deactivate your own account; another administrator can")
        const removeSelf = yield* call("DELETE", `/api/v1/users/${self}`, { token: org.adminToken })
        expectStatus(removeSelf, 409)
        expect(removeSelf.body.detail).toBe("You cannot remove your own account; another administrator can")
        const resetSelf = yield* call("POST", `/api/v1/users/${self}/reset-password`, { token: org.adminToken })
        expectStatus(resetSelf, 409)
        expect(resetSelf.body.detail).toBe("You cannot reset your own password here; change it with your current password instead")

        // With a second administrator, either may step down (self included), but not both.
        const bea = yield* addUser(org, "bea", "admin")
        expectStatus(yield* call("PUT", `/api/v1/users/${self}/role`, { token: org.adminToken, body: { role: "member" } }), 200)
        const last = yield* call("PUT", `/api/v1/users/${bea.user.id}/role`, { token: bea.token, body: { role: "member" } })
        expectStatus(last, 409)
        // a deactivated administrator does not count: promote the first again, deactivate them, and bea is the last once more
        expectStatus(yield* call("PUT", `/api/v1/users/${self}/role`, { token: bea.token, body: { role: "admin" } }), 200)
        expectStatus(yield* call("POST", `/api/v1/users/${self}/deactivate`, { token: bea.token }), 200)
        expectStatus(yield* call("DELETE", `/api/v1/users/${bea.user.id}`, { apiKey: bea.apiKey }), 409)
        expectStatus(yield* call("PUT", `/api/v1/users/${bea.user.id}/role`, { apiKey: bea.apiKey, body: { role: "member" } }), 409)
        const admins = (yield* call("GET", "/api/v1/users", { token: bea.token })).body.users
          .filter((u: { role: string; is_active: boolean }) => u.role === "admin" && u.is_active)
        expect(admins.map((u: { id: number }) => u.id)).toEqual([bea.user.id])
      }))

    it.effect("two administrators demoting each other at once: exactly one succeeds, the other is refused", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const bea = yield* addUser(org, "bea", "admin")
        for (let round = 0; round < 3; round++) {
          const [a, b] = yield* Effect.all([
            call("PUT", `/api/v1/users/${bea.user.id}/role`, { token: org.adminToken, body: { role: "member" } }),
            call("PUT", `/api/v1/users/${org.admin.id}/role`, { token: bea.token, body: { role: "member" } })
          ], { concurrency: "unbounded" })
          // refused as the last administrator (409), or, when it was already demoted as it authenticated, for its role (403)
          expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1)
          expect([409, 403]).toContain(a.status === 200 ? b.status : a.status)
          const users = (yield* call("GET", "/api/v1/users", { apiKey: a.status === 200 ? org.apiKey : bea.apiKey })).body.users
          expect(users.filter((u: { role: string }) => u.role === "admin")).toHaveLength(1)
          // restore both as admins for the next round
          const demoted = a.status === 200 ? bea.user.id : org.admin.id
          expectStatus(yield* call("PUT", `/api/v1/users/${demoted}/role`, { apiKey: a.status === 200 ? org.apiKey : bea.apiKey, body: { role: "admin" } }), 200)
        }
      }))

    it.effect("a deactivated user's sessions end, their login and API keys are refused, until reactivated", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const cy = yield* addUser(org, "cy", "member")
        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: cy.token }), 200)
        const deactivated = yield* call("POST", `/api/v1/users/${cy.user.id}/deactivate`, { token: org.adminToken })
        expectStatus(deactivated, 200)
        expect(deactivated.body).toMatchObject({ is_active: false })
        expect(typeof deactivated.body.deactivated_at).toBe("string")

        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: cy.token }), 401)
        expectStatus(yield* call("GET", "/api/v1/auth/me", { apiKey: cy.apiKey }), 401)
        const refused = yield* login(cy.email, cy.password)
        expectStatus(refused, 403)
        expect(refused.body.detail).toBe("This account is deactivated; an administrator of your organization can reactivate it")
        // a wrong password still says only that the credentials are wrong
        expectStatus(yield* login(cy.email, "not-the-password"), 401)
        const listed = (yield* call("GET", "/api/v1/users", { apiKey: org.apiKey })).body.users
        expect(listed.find((u: { id: number }) => u.id === cy.user.id)).toMatchObject({ is_active: false })

        const reactivated = yield* call("POST", `/api/v1/users/${cy.user.id}/reactivate`, { apiKey: org.apiKey })
        expectStatus(reactivated, 200)
        expect(reactivated.body).toMatchObject({ is_active: true, deactivated_at: null })
        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: cy.token }), 401)
        expectStatus(yield* login(cy.email, cy.password), 200)
        expectStatus(yield* call("GET", "/api/v1/auth/me", { apiKey: cy.apiKey }), 200)
      }))

    it.effect("a removed user disappears: 404, no login, keys archived, and the email can be used again", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const dee = yield* addUser(org, "dee", "admin")
        const removed = yield* call("DELETE", `/api/v1/users/${dee.user.id}`, { token: org.adminToken })
        expectStatus(removed, 200)
        expect(removed.body).toEqual({ success: true, message: "User removed" })

        expectStatus(yield* call("GET", `/api/v1/users/${dee.user.id}`, { apiKey: org.apiKey }), 404)
        expectStatus(yield* call("DELETE", `/api/v1/users/${dee.user.id}`, { apiKey: org.apiKey }), 404)
        expectStatus(yield* call("POST", `/api/v1/users/${dee.user.id}/reactivate`, { apiKey: org.apiKey }), 404)
        const listed = (yield* call("GET", "/api/v1/users", { apiKey: org.apiKey })).body.users
        expect(listed.map((u: { id: number }) => u.id)).toEqual([org.admin.id])
        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: dee.token }), 401)
        expectStatus(yield* call("GET", "/api/v1/auth/me", { apiKey: dee.apiKey }), 401)
        expectStatus(yield* login(dee.email, dee.password), 401)
        // their key is archived, and reactivating it cannot bring them back
        const keys = (yield* call("GET", "/api/v1/user/api-keys?include_archived=true", { apiKey: org.apiKey })).body
        expect(keys.find((k: { id: number }) => k.id === dee.apiKeyId)).toMatchObject({ is_active: false })
        expectStatus(yield* call("PUT", `/api/v1/user/api-keys/${dee.apiKeyId}/reactivate`, { apiKey: org.apiKey }), 200)
        expectStatus(yield* call("GET", "/api/v1/auth/me", { apiKey: dee.apiKey }), 401)

        const again = yield* call("POST", "/api/v1/users", { apiKey: org.apiKey, body: { email: dee.email, password: "a-new-start-1" } })
        expectStatus(again, 200)
        expect(again.body.id).not.toBe(dee.user.id)
        expectStatus(yield* login(dee.email, "a-new-start-1"), 200)
      }))

    it.effect("a password reset: a temporary password shown once, sessions ended, changed at next login; needs a session", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const eve = yield* addUser(org, "eve", "member")
        const byKey = yield* call("POST", `/api/v1/users/${eve.user.id}/reset-password`, { apiKey: org.apiKey })
        expectStatus(byKey, 403)
        expect(byKey.body.detail).toMatch(/needs a login session/)
        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: eve.token }), 200)

        const reset = yield* call("POST", `/api/v1/users/${eve.user.id}/reset-password`, { token: org.adminToken })
        expectStatus(reset, 200)
        expect(reset.body.user).toMatchObject({ id: eve.user.id, must_change_password: true })
        const temporary = reset.body.temporary_password as string
        expect(temporary.length).toBeGreaterThanOrEqual(16)

        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: eve.token }), 401)
        expectStatus(yield* login(eve.email, eve.password), 401)
        const session = yield* login(eve.email, temporary)
        expectStatus(session, 200)
        const gated = yield* call("GET", "/api/v1/auth/me", { token: session.body.token })
        expectStatus(gated, 403)
        expect(gated.body.detail).toBe("password_change_required")
        expectStatus(
          yield* call("POST", "/api/v1/auth/change-password", {
            token: session.body.token,
            body: { current_password: temporary, new_password: "eve-chose-this" }
          }),
          200
        )
        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: session.body.token }), 200)
        // her API key was never a password: it keeps working
        expectStatus(yield* call("GET", "/api/v1/auth/me", { apiKey: eve.apiKey }), 200)
      }))

    it.effect("members may do none of it; another organization's users are not found", () =>
      Effect.gen(function*() {
        const org = yield* seed
        const other = yield* seed
        const fay = yield* addUser(org, "fay", "member")
        const theirs = yield* addUser(other, "gus", "member")
        const endpoints = (id: number) =>
          [
            ["GET", `/api/v1/users/${id}`, undefined],
            ["PUT", `/api/v1/users/${id}/role`, { role: "admin" }],
            ["POST", `/api/v1/users/${id}/deactivate`, undefined],
            ["POST", `/api/v1/users/${id}/reactivate`, undefined],
            ["POST", `/api/v1/users/${id}/reset-password`, undefined],
            ["DELETE", `/api/v1/users/${id}`, undefined]
          ] as const
        for (const [method, path, body] of endpoints(org.admin.id)) {
          const reply = yield* call(method, path, { token: fay.token, body })
          expectStatus(reply, 403)
          expect(reply.body.detail).toMatch(/needs the admin role \(your role is member\)/)
        }
        for (const [method, path, body] of endpoints(theirs.user.id)) {
          const reply = yield* call(method, path, { token: org.adminToken, body })
          expectStatus(reply, 404)
          expect(reply.body.detail).toBe(`User ${theirs.user.id} not found`)
        }
        // nothing happened to them
        expectStatus(yield* call("GET", "/api/v1/auth/me", { token: theirs.token }), 200)
        expect((yield* call("GET", `/api/v1/users/${theirs.user.id}`, { apiKey: other.apiKey })).body).toMatchObject({ role: "member", is_active: true })
      }))
  })
}
