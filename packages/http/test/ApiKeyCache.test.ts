/**
 * API keys once warm (issue 13): a verified key is not looked up in the database again for a second;
 * archiving it refuses it at once in this process, and a change made by another process (here: the
 * row updated behind the service's back) is seen within that second. Time is the TestClock.
 */
import { KEY_CACHE_TTL } from "@agentline/core/api-keys/ApiKeys"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, TestClock } from "effect"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const me = (apiKey: string) => call("GET", "/api/v1/auth/me", { apiKey })

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`API key cache [${dialect}]`, (it) => {
    it.effect("a warm key is served without the database; a change elsewhere is seen within the cache's time", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        expect((yield* me(org.apiKey)).status).toBe(200)
        // Another process archives the key: this process does not ask the database again at once...
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE api_keys SET is_active = ${dialect === "pg" ? false : 0} WHERE organization_id = ${org.admin.organization_id}`.pipe(Effect.orDie)
        expect((yield* me(org.apiKey)).status).toBe(200)
        // ...and refuses it once the cached verification expires.
        yield* TestClock.adjust(Duration.sum(KEY_CACHE_TTL, Duration.millis(1)))
        expect((yield* me(org.apiKey)).status).toBe(401)
      }))

    it.effect("archiving through the API refuses the key at once, and a refused key is not remembered", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const created = yield* call("POST", "/api/v1/user/api-keys", { apiKey: org.apiKey, body: { name: "second" } })
        expect(created.status).toBe(200)
        const second: string = created.body.api_key
        expect((yield* me(second)).status).toBe(200)
        expect((yield* call("DELETE", `/api/v1/user/api-keys/${created.body.id}`, { apiKey: org.apiKey })).status).toBe(200)
        expect((yield* me(second)).status).toBe(401)
        // Reactivated: works at once (the refusal was not cached).
        expect((yield* call("PUT", `/api/v1/user/api-keys/${created.body.id}/reactivate`, { apiKey: org.apiKey })).status).toBe(200)
        expect((yield* me(second)).status).toBe(200)
      }))
  })
}
