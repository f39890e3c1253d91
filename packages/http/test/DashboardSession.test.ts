/**
 * The dashboard's login session in cookies (docs/dashboard.md): login sets an HttpOnly, SameSite=Strict
 * session cookie and a readable CSRF cookie; the cookie authenticates like the bearer token; writes
 * authenticated by it need `X-CSRF-Token` = the CSRF cookie (made for that session); logout revokes the
 * session and clears both cookies. Bearer tokens and API keys work as before, without CSRF tokens.
 */
import { Users } from "@agentline/core/users/Users"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dialects, seedOrganization, TestApp } from "./Harness.js"

interface Answer {
  readonly status: number
  readonly body: any
  readonly headers: Readonly<Record<string, string>>
  /** Each Set-Cookie line as sent. */
  readonly setCookies: ReadonlyArray<string>
}

const send = (
  method: "GET" | "POST" | "PUT" | "DELETE",
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: unknown } = {}
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    let request = HttpClientRequest.make(method)(path)
    if (options.headers) request = HttpClientRequest.setHeaders(request, options.headers)
    if (options.body !== undefined) request = yield* HttpClientRequest.bodyJson(request, options.body)
    const response = yield* client.execute(request)
    const text = yield* response.text
    let body: unknown = text
    try {
      body = text === "" ? undefined : JSON.parse(text)
    } catch {
      // not JSON
    }
    // The client joins several Set-Cookie lines with ", " (as fetch does); an Expires date has ", " too,
    // but is not followed by `name=`.
    const raw = response.headers["set-cookie"] ?? ""
    const setCookies = raw === "" ? [] : raw.split(/, (?=[^ ;,=]+=)/)
    return { status: response.status, body, headers: response.headers, setCookies } satisfies Answer as Answer
  }).pipe(Effect.scoped, Effect.orDie)

const cookieLine = (answer: Answer, name: string) => {
  const line = answer.setCookies.find((l) => l.startsWith(`${name}=`))
  expect(line, `a Set-Cookie for ${name} in ${JSON.stringify(answer.setCookies)}`).toBeDefined()
  return line!
}
const cookieValue = (line: string) => line.slice(line.indexOf("=") + 1, line.indexOf(";"))

/** Logs in as a user with a chosen password; returns the cookies as a browser would send them. */
const loginWithCookies = (email: string, password: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const answer = yield* send("POST", "/api/v1/auth/login", { body: { email, password }, headers })
    expect(answer.status).toBe(200)
    const session = cookieValue(cookieLine(answer, "agentline_session"))
    const csrf = cookieValue(cookieLine(answer, "agentline_csrf"))
    return { answer, session, csrf, cookie: `agentline_session=${session}; agentline_csrf=${csrf}` }
  })

const adminLogin = Effect.gen(function*() {
  const org = yield* seedOrganization()
  const login = yield* loginWithCookies(org.admin.email, "initial-password")
  return { org, ...login }
})

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Dashboard session cookies [${dialect}]`, (it) => {
    it.effect("login keeps its JSON body and sets an HttpOnly SameSite=Strict session cookie and a readable CSRF cookie", () =>
      Effect.gen(function*() {
        const { answer, session, csrf } = yield* adminLogin
        expect(answer.body.token_type).toBe("bearer")
        expect(answer.body.token).toBe(session)
        const sessionLine = cookieLine(answer, "agentline_session")
        expect(sessionLine).toMatch(/; HttpOnly/)
        expect(sessionLine).toMatch(/; SameSite=Strict/)
        expect(sessionLine).toMatch(/; Path=\//)
        expect(sessionLine).toMatch(/; Expires=/)
        // The test server's public URL is http: no Secure (the browser would drop the cookie).
        expect(sessionLine).not.toMatch(/; Secure/)
        const csrfLine = cookieLine(answer, "agentline_csrf")
        expect(csrfLine).not.toMatch(/HttpOnly/)
        expect(csrfLine).toMatch(/; SameSite=Strict/)
        expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(csrf).not.toBe(session)
      }))

    it.effect("the cookies are Secure when the request came over https (X-Forwarded-Proto)", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const { answer } = yield* loginWithCookies(org.admin.email, "initial-password", { "x-forwarded-proto": "https" })
        expect(cookieLine(answer, "agentline_session")).toMatch(/; Secure/)
        expect(cookieLine(answer, "agentline_csrf")).toMatch(/; Secure/)
      }))

    it.effect("the session cookie authenticates reads without a CSRF token", () =>
      Effect.gen(function*() {
        const { org, cookie } = yield* adminLogin
        const me = yield* send("GET", "/api/v1/auth/me", { headers: { cookie } })
        expect(me.status).toBe(200)
        expect(me.body.email).toBe(org.admin.email)
        const keys = yield* send("GET", "/api/v1/user/api-keys", { headers: { cookie } })
        expect(keys.status).toBe(200)
      }))

    it.effect("a cookie-authenticated write needs X-CSRF-Token equal to the CSRF cookie", () =>
      Effect.gen(function*() {
        const { cookie, csrf, session } = yield* adminLogin
        const create = (headers: Record<string, string>) =>
          send("POST", "/api/v1/user/api-keys", { headers, body: { name: "from the dashboard" } })

        const missing = yield* create({ cookie })
        expect(missing.status).toBe(403)
        expect(missing.body.detail).toMatch(/X-CSRF-Token header with the value of the agentline_csrf cookie/)

        const wrong = yield* create({ cookie, "x-csrf-token": csrf.slice(0, -2) + "xx" })
        expect(wrong.status).toBe(403)

        // A token planted in the cookie jar (say by a sibling subdomain) and repeated in the header does
        // not match this session.
        const planted = yield* create({
          cookie: `agentline_session=${session}; agentline_csrf=planted-token`,
          "x-csrf-token": "planted-token"
        })
        expect(planted.status).toBe(403)

        const right = yield* create({ cookie, "x-csrf-token": csrf })
        expect(right.status).toBe(200)
        expect(right.body.api_key).toMatch(/^agl_/)
      }))

    it.effect("bearer tokens and API keys need no CSRF token, and win over a cookie", () =>
      Effect.gen(function*() {
        const { org, answer } = yield* adminLogin
        const byBearer = yield* send("POST", "/api/v1/user/api-keys", {
          headers: { authorization: `Bearer ${answer.body.token}` },
          body: { name: "by bearer" }
        })
        expect(byBearer.status).toBe(200)
        const byKey = yield* send("POST", "/api/v1/user/api-keys", {
          headers: { "x-api-key": org.apiKey },
          body: { name: "by key" }
        })
        expect(byKey.status).toBe(200)
        // A stale cookie next to a valid key or token does not matter: the key, then the bearer, wins.
        const stale = "agentline_session=als_expired; agentline_csrf=x"
        expect((yield* send("POST", "/api/v1/user/api-keys", {
          headers: { "x-api-key": org.apiKey, cookie: stale },
          body: { name: "key and cookie" }
        })).status).toBe(200)
        expect((yield* send("GET", "/api/v1/auth/me", {
          headers: { authorization: `Bearer ${answer.body.token}`, cookie: stale }
        })).status).toBe(200)
        // And without credentials it is still 401, telling what to send.
        const none = yield* send("GET", "/api/v1/auth/me")
        expect(none.status).toBe(401)
        expect(none.body.detail).toMatch(/X-API-Key/)
      }))

    it.effect("an unknown or ended session cookie is 401 saying to log in again", () =>
      Effect.gen(function*() {
        const answer = yield* send("GET", "/api/v1/auth/me", { headers: { cookie: "agentline_session=als_nosuchsession" } })
        expect(answer.status).toBe(401)
        expect(answer.body.detail).toMatch(/log in again/)
      }))

    it.effect("logout revokes the session and clears both cookies; a later request with them is 401", () =>
      Effect.gen(function*() {
        const { cookie, csrf, answer: login } = yield* adminLogin
        const withoutToken = yield* send("POST", "/api/v1/auth/logout", { headers: { cookie } })
        expect(withoutToken.status).toBe(403)
        const out = yield* send("POST", "/api/v1/auth/logout", { headers: { cookie, "x-csrf-token": csrf } })
        expect(out.status).toBe(200)
        expect(out.body).toEqual({ success: true, message: "Logged out" })
        for (const name of ["agentline_session", "agentline_csrf"]) {
          const line = cookieLine(out, name)
          expect(cookieValue(line)).toBe("")
          expect(line).toMatch(/; Max-Age=0/)
        }
        expect((yield* send("GET", "/api/v1/auth/me", { headers: { cookie } })).status).toBe(401)
        // The same session as a bearer token is gone too.
        expect((yield* send("GET", "/api/v1/auth/me", { headers: { authorization: `Bearer ${login.body.token}` } })).status)
          .toBe(401)
      }))

    it.effect("logout with a bearer token ends that session; with an API key it is 400 saying what to do instead", () =>
      Effect.gen(function*() {
        const { org, answer: login } = yield* adminLogin
        const bearer = { authorization: `Bearer ${login.body.token}` }
        expect((yield* send("POST", "/api/v1/auth/logout", { headers: bearer })).status).toBe(200)
        expect((yield* send("GET", "/api/v1/auth/me", { headers: bearer })).status).toBe(401)
        const byKey = yield* send("POST", "/api/v1/auth/logout", { headers: { "x-api-key": org.apiKey } })
        expect(byKey.status).toBe(400)
        expect(byKey.body.detail).toMatch(/archive the key/)
      }))

    it.effect("a temporary password: the cookie session gets 403 password_change_required until the change, made with the CSRF token", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const users = yield* Users
        const email = `new@${org.name}.test`
        yield* users.create({ email, password: "temporary-1", role: "member", organization: { id: org.admin.organization_id } })
        const { cookie, csrf, answer } = yield* loginWithCookies(email, "temporary-1")
        expect(answer.body.user.must_change_password).toBe(true)
        const gated = yield* send("GET", "/api/v1/user/api-keys", { headers: { cookie } })
        expect(gated.status).toBe(403)
        expect(gated.body.detail).toBe("password_change_required")
        const change = (headers: Record<string, string>) =>
          send("POST", "/api/v1/auth/change-password", {
            headers,
            body: { current_password: "temporary-1", new_password: "my-own-password" }
          })
        expect((yield* change({ cookie })).status).toBe(403)
        const changed = yield* change({ cookie, "x-csrf-token": csrf })
        expect(changed.status).toBe(200)
        expect(changed.body.must_change_password).toBe(false)
        expect((yield* send("GET", "/api/v1/user/api-keys", { headers: { cookie } })).status).toBe(200)
      }))
  })
}
