/**
 * Embed tokens and the public embed (docs/embed.md), on SQLite and PostgreSQL: the token's life
 * (create, update, revoke for good), its allowed origins checked on the `Origin` header and in CORS,
 * sessions opened on the published version, limits per token and per visitor, and nothing of the
 * organization shown to visitors but the agent's name.
 */
import { EmbedRepo } from "@agentline/core/embed/EmbedRepo"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Duration, Effect, Option, TestClock } from "effect"
import * as Crypto from "node:crypto"
import { plainDefinition } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const SITE = "https://shop.example.com"

/** A request with any method and headers; the status, headers and JSON body of the answer. */
const send = (method: "GET" | "POST" | "OPTIONS", path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(options.headers ?? {}))
    if (options.body !== undefined) request = yield* HttpClientRequest.bodyJson(request, options.body)
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
  }).pipe(Effect.scoped, Effect.orDie)

const fromPage = (origin: string, visitor = "198.51.100.7") => ({ origin, "x-forwarded-for": visitor })

const setup = Effect.gen(function*() {
  const org = yield* seedOrganization()
  const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
    apiKey: org.apiKey,
    body: { name: "Front desk", workflow_definition: plainDefinition(), template_context_variables: { secret_note: "internal" } }
  })
  expect(agent.status).toBe(200)
  const token = (body: unknown) => call("POST", `/api/v1/workflow/${agent.body.id}/embed-token`, { apiKey: org.apiKey, body })
  return { org, agent: agent.body, token }
})

for (const dialect of dialects) {
  // One trusted proxy: each test's visitors are told apart by X-Forwarded-For.
  layer(TestApp(dialect, { trustedProxyHops: 1 }), { timeout: "120 seconds" })(`Embed [${dialect}]`, (it) => {
    it.effect("a token is created with its origins, updated in place, revoked for good; another organization cannot see it", () =>
      Effect.gen(function*() {
        const { agent, org, token } = yield* setup
        const path = `/api/v1/workflow/${agent.id}/embed-token`
        expect(yield* call("GET", path, { apiKey: org.apiKey })).toEqual({ status: 200, body: null })

        const missing = yield* token({ settings: { theme: "dark" } })
        expect(missing.status).toBe(422)
        expect(missing.body.detail[0].loc).toEqual(["body", "allowed_domains"])
        const bad = yield* token({ allowed_domains: ["https://shop.example.com/checkout", "ok.example.com", "*.com"], settings: { buttonColor: "red" } })
        expect(bad.status).toBe(422)
        expect(bad.body.detail.map((d: { readonly loc: ReadonlyArray<string | number> }) => d.loc)).toEqual([["body", "allowed_domains", 0], ["body", "allowed_domains", 2], ["body", "settings", "buttonColor"]])

        const created = yield* token({ allowed_domains: ["https://Shop.Example.com/", "localhost:5173"], settings: { theme: "dark" }, usage_limit: 100 })
        expect(created.status).toBe(200)
        expect(created.body).toMatchObject({
          allowed_domains: ["https://shop.example.com", "localhost:5173"],
          settings: { theme: "dark" },
          is_active: true,
          usage_count: 0,
          usage_limit: 100
        })
        expect(created.body.token).toMatch(/^emb_[A-Za-z0-9_-]{32}$/)
        // Thirty days by default.
        expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(30 * 24 * 60 * 60 * 1000)
        // The snippet a site owner pastes loads this server's widget script with the token.
        expect(created.body.embed_script).toBe(
          `<script src="http://127.0.0.1:0/embed/widget.js" data-agentline-token="${created.body.token}" data-agentline-position="bottom-right" data-agentline-theme="dark" async></script>`
        )
        expect(yield* call("GET", path, { apiKey: org.apiKey })).toEqual({ status: 200, body: created.body })

        // An update keeps the token's value (pages carrying it keep working) and what it does not send.
        const updated = yield* token({ settings: { theme: "light", buttonText: "Ask us" }, expires_in_days: null })
        expect(updated.body).toMatchObject({ token: created.body.token, allowed_domains: created.body.allowed_domains, usage_limit: 100, expires_at: null })

        const other = yield* seedOrganization()
        for (const method of ["GET", "POST", "DELETE"] as const) {
          const reply = yield* call(method, path, { apiKey: other.apiKey, ...(method === "POST" ? { body: { allowed_domains: ["*"] } } : {}) })
          expect(reply.status).toBe(404)
        }

        expect(yield* call("DELETE", path, { apiKey: org.apiKey })).toEqual({ status: 200, body: { message: "Embed token deactivated successfully" } })
        expect((yield* call("DELETE", path, { apiKey: org.apiKey })).status).toBe(404)
        expect((yield* call("GET", path, { apiKey: org.apiKey })).body).toBeNull()
        // Revoked for good: its pages are refused, and a new token has a new value.
        const revoked = yield* send("POST", "/api/v1/public/embed/init", { headers: fromPage(SITE), body: { token: created.body.token } })
        expect(revoked).toMatchObject({ status: 403, body: { detail: "Embed token is inactive" } })
        const fresh = yield* token({ allowed_domains: [SITE] })
        expect(fresh.body.token).not.toBe(created.body.token)
      }))

    it.effect("the widget script is served to any page, as JavaScript, with the public embed's paths in it", () =>
      Effect.gen(function*() {
        const client = yield* HttpClient.HttpClient
        const response = yield* client.get("/embed/widget.js", { headers: { origin: SITE } })
        expect(response.status).toBe(200)
        expect(response.headers["content-type"]).toBe("text/javascript; charset=utf-8")
        expect(response.headers["cross-origin-resource-policy"]).toBe("cross-origin")
        const script = yield* response.text
        for (const path of ["/api/v1/public/embed", "\"/config/\"", "\"/init\"", "\"/chat/\"", "data-agentline-token"]) expect(script).toContain(path)
        // A syntax error would break every page that pastes the snippet.
        expect(() => new Function(script)).not.toThrow()
      }).pipe(Effect.scoped, Effect.orDie))

    it.effect("the configuration answers pages of the allowed origins only, with the agent's name and the widget's settings and nothing else", () =>
      Effect.gen(function*() {
        const { agent, token } = yield* setup
        const created = yield* token({ allowed_domains: [SITE], settings: { widgetType: "chat", buttonColor: "#10b981", texts: { chatInputPlaceholder: "Ask away" } } })
        const path = `/api/v1/public/embed/config/${created.body.token}`

        const allowed = yield* send("GET", path, { headers: fromPage(SITE) })
        expect(allowed.status).toBe(200)
        expect(allowed.headers["access-control-allow-origin"]).toBe(SITE)
        expect(allowed.headers["vary"]).toContain("Origin")
        expect(Object.keys(allowed.body).sort()).toEqual(
          ["agent_name", "auto_start", "button_color", "button_text", "force_turn_relay", "position", "settings", "size", "texts", "theme", "turn_enabled", "widget_type", "workflow_id"]
        )
        expect(allowed.body).toMatchObject({ workflow_id: agent.id, agent_name: "Front desk", widget_type: "chat", button_color: "#10b981", button_text: "Start Chat" })
        expect(allowed.body.texts.chatInputPlaceholder).toBe("Ask away")
        expect(JSON.stringify(allowed.body)).not.toContain("internal")

        // The Referer's origin stands in when a browser sends no Origin.
        expect((yield* send("GET", path, { headers: { referer: `${SITE}/products/1?x=y` } })).status).toBe(200)
        const refused = yield* send("GET", path, { headers: fromPage("https://shop.example.com.evil.net") })
        expect(refused).toMatchObject({ status: 403, body: { detail: "Domain not allowed: https://shop.example.com.evil.net" } })
        // The refusal is readable by the page, so the widget can say why.
        expect(refused.headers["access-control-allow-origin"]).toBe("https://shop.example.com.evil.net")
        expect((yield* send("GET", path)).status).toBe(403)
        expect(yield* send("GET", "/api/v1/public/embed/config/emb_nope", { headers: fromPage(SITE) })).toMatchObject({ status: 404, body: { detail: "Invalid embed token" } })

        // CORS preflights: the configuration's only for allowed origins, init's for any (its token is in the body).
        const preflight = (route: string, origin: string, method: string) =>
          send("OPTIONS", route, { headers: { origin, "access-control-request-method": method, "access-control-request-headers": "content-type" } })
        const ok = yield* preflight(path, SITE, "GET")
        expect(ok.status).toBe(204)
        expect(ok.headers).toMatchObject({ "access-control-allow-origin": SITE, "access-control-allow-methods": "GET, OPTIONS", "access-control-max-age": "86400" })
        expect(ok.headers["access-control-allow-credentials"]).toBeUndefined()
        expect((yield* preflight(path, "https://elsewhere.example.net", "GET")).status).toBe(403)
        expect((yield* preflight(path, SITE, "DELETE")).status).toBe(405)
        expect((yield* preflight("/api/v1/public/embed/config/%E0%A4%A", SITE, "GET")).status).toBe(403)
        const init = yield* preflight("/api/v1/public/embed/init", "https://elsewhere.example.net", "POST")
        expect(init.status).toBe(204)
        expect(init.headers["access-control-allow-origin"]).toBe("https://elsewhere.example.net")
        // The rest of the API keeps the server-wide CORS answer.
        expect((yield* preflight("/api/v1/health", SITE, "GET")).headers["access-control-allow-origin"]).toBe("*")

        // An expired token stops answering (its expiry moved to the past: a jump of days would replay the server's timers).
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE embed_tokens SET expires_at = ${new Date(-1000).toISOString()} WHERE token = ${created.body.token}`
        expect(yield* send("GET", path, { headers: fromPage(SITE) })).toMatchObject({ status: 403, body: { detail: "Embed token has expired" } })
      }))

    it.effect("init opens a session on the published version, with the page's variables; the session token is stored hashed", () =>
      Effect.gen(function*() {
        const { agent, org, token } = yield* setup
        const created = yield* token({ allowed_domains: [SITE], usage_limit: 2 })
        // A draft saved meanwhile is not what visitors talk to.
        yield* call("PUT", `/api/v1/workflow/${agent.id}`, { apiKey: org.apiKey, body: { template_context_variables: { secret_note: "draft" } } })

        const opened = yield* send("POST", "/api/v1/public/embed/init", {
          headers: { ...fromPage(SITE), "user-agent": "TestBrowser/1.0" },
          body: { token: created.body.token, context_variables: { first_name: "Ada", visits: 3 } }
        })
        expect(opened.status).toBe(200)
        expect(opened.headers["access-control-allow-origin"]).toBe(SITE)
        expect(opened.body).toMatchObject({ widget_type: "voice", chat_session: null, config: { workflow_id: agent.id, turn_enabled: false } })
        expect(opened.body.session_token).toMatch(/^emb_session_/)
        expect(opened.body.config.workflow_run_id).toBe(opened.body.workflow_run_id)
        expect(JSON.stringify(opened.body)).not.toMatch(/organization|secret_note|internal/)

        const run = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${opened.body.workflow_run_id}`, { apiKey: org.apiKey })
        expect(run.body).toMatchObject({
          definition_id: agent.current_definition_id,
          mode: "webcall",
          call_type: "inbound",
          is_completed: false,
          initial_context: { first_name: "Ada", visits: 3, provider: "webcall", direction: "inbound" },
          annotations: { embed: { source: "embed_widget", modality: "voice" } }
        })
        expect(run.body.initial_context.secret_note).toBeUndefined()

        // Stored by its hash only; a transport finds the session by hashing the token it is given.
        const sql = yield* SqlClient.SqlClient
        const stored = yield* sql<{ token_hash: string }>`SELECT token_hash FROM embed_sessions`
        expect(stored.map((r) => r.token_hash)).not.toContain(opened.body.session_token)
        const session = yield* (yield* EmbedRepo).findSession(Crypto.createHash("sha256").update(opened.body.session_token).digest("hex"))
        expect(Option.getOrThrow(session)).toMatchObject({
          workflow_run_id: opened.body.workflow_run_id,
          definition_id: agent.current_definition_id,
          origin: SITE,
          client_address: "198.51.100.7",
          user_agent: "TestBrowser/1.0",
          modality: "voice",
          attached_at: null
        })
        expect(Date.parse(Option.getOrThrow(session).expires_at) - Date.parse(Option.getOrThrow(session).created_at)).toBe(60 * 60 * 1000)

        // Refusals: another origin, bad variables, the token's usage limit, an archived agent.
        const fromElsewhere = yield* send("POST", "/api/v1/public/embed/init", { headers: fromPage("https://elsewhere.example.net"), body: { token: created.body.token } })
        expect(fromElsewhere).toMatchObject({ status: 403, body: { detail: "Domain not allowed: https://elsewhere.example.net" } })
        const badVariables = yield* send("POST", "/api/v1/public/embed/init", {
          headers: fromPage(SITE),
          body: { token: created.body.token, context_variables: { provider: "x", nested: { a: 1 } } }
        })
        expect(badVariables.status).toBe(422)
        expect(badVariables.body.detail.map((d: { readonly loc: ReadonlyArray<string | number> }) => d.loc)).toEqual([["body", "context_variables", "provider"], ["body", "context_variables", "nested"]])
        expect((yield* send("POST", "/api/v1/public/embed/init", { headers: fromPage(SITE), body: { token: created.body.token } })).status).toBe(200)
        expect(yield* send("POST", "/api/v1/public/embed/init", { headers: fromPage(SITE), body: { token: created.body.token } }))
          .toMatchObject({ status: 403, body: { detail: "Embed token usage limit exceeded" } })
        expect((yield* call("GET", `/api/v1/workflow/${agent.id}/embed-token`, { apiKey: org.apiKey })).body.usage_count).toBe(2)

        yield* token({ usage_limit: null })
        yield* call("PUT", `/api/v1/workflow/${agent.id}/status`, { apiKey: org.apiKey, body: { status: "archived" } })
        expect(yield* send("POST", "/api/v1/public/embed/init", { headers: fromPage(SITE), body: { token: created.body.token } }))
          .toMatchObject({ status: 403, body: { detail: "This agent is not available" } })
      }))

    it.effect("a chat widget's sessions are text-chat runs; each visitor may start ten sessions in ten minutes", () =>
      Effect.gen(function*() {
        const { agent, org, token } = yield* setup
        const created = yield* token({ allowed_domains: ["*"], settings: { widgetType: "chat" } })
        const open = (visitor: string) =>
          send("POST", "/api/v1/public/embed/init", { headers: fromPage("https://any.example.org", visitor), body: { token: created.body.token } })
        const first = yield* open("203.0.113.1")
        expect(first.body.widget_type).toBe("chat")
        const run = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${first.body.workflow_run_id}`, { apiKey: org.apiKey })
        expect(run.body).toMatchObject({ mode: "textchat", annotations: { embed: { modality: "text" } } })
        for (let i = 1; i < 10; i++) expect((yield* open("203.0.113.1")).status).toBe(200)
        const throttled = yield* open("203.0.113.1")
        expect(throttled.status).toBe(429)
        expect(throttled.body.detail).toMatch(/^Too many requests from this visitor; try again in \d+ seconds$/)
        // Another visitor is not held back; the first one is again once time has passed.
        expect((yield* open("203.0.113.2")).status).toBe(200)
        yield* TestClock.adjust(Duration.minutes(10))
        expect((yield* open("203.0.113.1")).status).toBe(200)

        // Reading the configuration is limited too, more loosely (a page may load it on every view).
        const read = () => send("GET", `/api/v1/public/embed/config/${created.body.token}`, { headers: fromPage("https://any.example.org", "203.0.113.9") })
        for (let i = 0; i < 120; i++) expect((yield* read()).status).toBe(200)
        expect((yield* read()).status).toBe(429)
      }))
  })
}
