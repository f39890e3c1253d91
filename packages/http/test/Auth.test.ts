/**
 * Password guessing (issue 16, defects 10–12): the login throttle counts an attempt before hashing,
 * limits per account and (much higher) per client address, takes the client address from the socket
 * unless the operator trusts proxies, and also guards the password change, which needs a login session.
 */
import { Users } from "@agentline/core/users/Users"
import { expect, layer } from "@effect/vitest"
import { Array, Effect } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

let addresses = 0
/** A fresh client address per test, so one test's failures never count against another's. */
const newAddress = () => `198.51.100.${++addresses}`

const login = (email: string, password: string, address: string) =>
  call("POST", "/api/v1/auth/login", { body: { email, password }, headers: { "x-forwarded-for": address } })

/** `count` users of a new organization, with their password already chosen. */
const seedUsers = (count: number) =>
  Effect.gen(function*() {
    const org = yield* seedOrganization()
    const users = yield* Users
    const created = yield* Effect.forEach(Array.range(1, count), (i) =>
      users.create({
        email: `user${i}@${org.name}.test`,
        password: `password-of-${i}`,
        role: "member",
        organization: { id: org.admin.organization_id },
        mustChangePassword: false
      }))
    return created.map((user, i) => ({ email: user.email, password: `password-of-${i + 1}` }))
  }).pipe(Effect.orDie)

const statusCounts = (statuses: ReadonlyArray<number>) =>
  statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {})

for (const dialect of dialects) {
  layer(TestApp(dialect, { trustedProxyHops: 1 }), { timeout: "120 seconds" })(`Login throttling [${dialect}]`, (it) => {
    it.effect("60 parallel guesses: only the account's 10 are checked, the rest and then the right password get 429", () =>
      Effect.gen(function*() {
        const [user] = yield* seedUsers(1)
        const address = newAddress()
        const replies = yield* Effect.forEach(
          Array.range(1, 60),
          (i) => login(user!.email, `wrong-guess-${i}`, address),
          { concurrency: "unbounded" }
        )
        expect(statusCounts(replies.map((r) => r.status))).toEqual({ 401: 10, 429: 50 })
        const right = yield* login(user!.email, user!.password, address)
        expect(right.status).toBe(429)
        expect(right.body.detail).toMatch(/try again in \d+ seconds/)
      }))

    it.effect("50 failures from one address (a shared NAT) do not lock out the other accounts behind it", () =>
      Effect.gen(function*() {
        const users = yield* seedUsers(11)
        const address = newAddress()
        for (const user of users.slice(0, 10)) {
          for (let i = 0; i < 5; i++) expect((yield* login(user.email, `typo-${i}`, address)).status).toBe(401)
        }
        const other = users[10]!
        expect((yield* login(other.email, other.password, address)).status).toBe(200)
        // the accounts themselves are below their limit, so their owners get in too
        expect((yield* login(users[0]!.email, users[0]!.password, address)).status).toBe(200)
      }))

    it.effect("the account limit holds whatever the address, and a right password clears it", () =>
      Effect.gen(function*() {
        const [user] = yield* seedUsers(1)
        for (let i = 0; i < 9; i++) expect((yield* login(user!.email, `wrong-${i}`, newAddress())).status).toBe(401)
        expect((yield* login(user!.email, user!.password, newAddress())).status).toBe(200)
        for (let i = 0; i < 10; i++) expect((yield* login(user!.email, `wrong-${i}`, newAddress())).status).toBe(401)
        expect((yield* login(user!.email, user!.password, newAddress())).status).toBe(429)
      }))

    it.effect("change-password refuses API keys (403) and leaves the password as it was", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const refused = yield* call("POST", "/api/v1/auth/change-password", {
          apiKey: org.apiKey,
          body: { current_password: "initial-password", new_password: "taken-over-by-a-key" }
        })
        expect(refused.status).toBe(403)
        expect(refused.body.detail).toMatch(/login session/)
        expect((yield* login(org.admin.email, "initial-password", newAddress())).status).toBe(200)
      }))

    it.effect("wrong current passwords on change-password count against the account: 429 after 10", () =>
      Effect.gen(function*() {
        const [user] = yield* seedUsers(1)
        const session = yield* login(user!.email, user!.password, newAddress())
        const token = session.body.token as string
        const change = (current: string) =>
          call("POST", "/api/v1/auth/change-password", {
            token,
            headers: { "x-forwarded-for": newAddress() },
            body: { current_password: current, new_password: "a-new-password" }
          })
        const wrong: Array<number> = []
        for (let i = 0; i < 10; i++) wrong.push((yield* change(`guess-${i}`)).status)
        expect(wrong).toEqual(Array.replicate(403, 10))
        expect((yield* change(user!.password)).status).toBe(429)
        expect((yield* login(user!.email, user!.password, newAddress())).status).toBe(429)
      }))
  })

  layer(TestApp(dialect, { trustedProxyHops: 1, loginMaxFailuresPerAddress: 5 }), { timeout: "60 seconds" })(
    `Login throttling per address, behind one trusted proxy [${dialect}]`,
    (it) => {
      it.effect("an address at its limit gets 429 for every account; other addresses do not", () =>
        Effect.gen(function*() {
          const users = yield* seedUsers(6)
          const address = newAddress()
          for (const user of users.slice(0, 5)) expect((yield* login(user.email, "wrong-password", address)).status).toBe(401)
          const last = users[5]!
          expect((yield* login(last.email, last.password, address)).status).toBe(429)
          expect((yield* login(last.email, last.password, newAddress())).status).toBe(200)
        }))

      it.effect("the client is the address the trusted proxy saw, not what the client wrote before it", () =>
        Effect.gen(function*() {
          const users = yield* seedUsers(6)
          const address = newAddress()
          for (const user of users.slice(0, 5)) {
            const spoofed = yield* call("POST", "/api/v1/auth/login", {
              body: { email: user.email, password: "wrong-password" },
              headers: { "x-forwarded-for": `10.9.9.${Math.floor(Math.random() * 250)}, ${address}` }
            })
            expect(spoofed.status).toBe(401)
          }
          expect((yield* login(users[5]!.email, users[5]!.password, address)).status).toBe(429)
        }))
    }
  )

  layer(TestApp(dialect, { loginMaxFailuresPerAddress: 5 }), { timeout: "60 seconds" })(
    `Login throttling per address, no proxy trusted [${dialect}]`,
    (it) => {
      it.effect("X-Forwarded-For is ignored unless the operator opts in: a new header per guess does not help", () =>
        Effect.gen(function*() {
          const users = yield* seedUsers(6)
          for (const user of users.slice(0, 5)) expect((yield* login(user.email, "wrong-password", newAddress())).status).toBe(401)
          expect((yield* login(users[5]!.email, users[5]!.password, newAddress())).status).toBe(429)
        }))
    }
  )
}

