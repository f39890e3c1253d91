/**
 * Serving the built dashboard (docs/dashboard.md): caching, security headers, the client-route
 * fallback, and the API's paths left alone. The rules are also tested as a pure function. No storage
 * is involved in serving files, so the server tests run on SQLite only.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { CONTENT_SECURITY_POLICY, IMMUTABLE, locateAssets, NO_CACHE, resolveTarget } from "../src/Dashboard.js"
import { TestApp } from "./Harness.js"

const get = (path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.setHeaders(HttpClientRequest.get(path), headers))
    return { status: response.status, headers: response.headers, text: yield* response.text }
  }).pipe(Effect.scoped, Effect.orDie)

const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" }

const built = locateAssets()
if (built._tag === "None") throw new Error("packages/dashboard/dist is missing: run `npm run build` (npm ci runs it)")
const directory = built.value
const scriptAsset = NodeFs.readdirSync(NodePath.join(directory, "assets")).find((name) => name.endsWith(".js"))!

const expectSecurityHeaders = (headers: Readonly<Record<string, string>>) => {
  expect(headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY)
  expect(headers["x-content-type-options"]).toBe("nosniff")
  expect(headers["referrer-policy"]).toBe("same-origin")
  expect(headers["x-frame-options"]).toBe("DENY")
}

describe("resolveTarget", () => {
  const files = new Set(["/d/index.html", "/d/favicon.svg", "/d/assets/index-abc123.js"])
  const resolve = (path: string, html = true) => resolveTarget("/d", path, html, (file) => files.has(file))

  it("serves hashed assets immutable and other files no-cache", () => {
    expect(resolve("/assets/index-abc123.js")).toEqual({ _tag: "File", file: "/d/assets/index-abc123.js", cacheControl: IMMUTABLE })
    expect(resolve("/favicon.svg")).toEqual({ _tag: "File", file: "/d/favicon.svg", cacheControl: NO_CACHE })
  })

  it("answers client routes with the page when HTML is accepted, and nothing otherwise", () => {
    expect(resolve("/")).toEqual({ _tag: "Page" })
    expect(resolve("/agents/12")).toEqual({ _tag: "Page" })
    expect(resolve("/settings/api-keys")).toEqual({ _tag: "Page" })
    expect(resolve("/agents/12", false)).toEqual({ _tag: "NotFound" })
  })

  it("never answers a missing asset or file-like path with the page", () => {
    expect(resolve("/assets/index-old.js")).toEqual({ _tag: "NotFound" })
    expect(resolve("/assets/nested")).toEqual({ _tag: "NotFound" })
    expect(resolve("/robots.txt")).toEqual({ _tag: "NotFound" })
  })

  it("does not leave the directory", () => {
    expect(resolveTarget("/d", "/../etc/passwd.txt", true, () => true)).toEqual({ _tag: "NotFound" })
    expect(resolveTarget("/d", "/%2e%2e/secret.json", true, () => true)).toEqual({ _tag: "NotFound" })
    expect(resolveTarget("/d", "/..%5csecret.json", true, () => true)).toEqual({ _tag: "NotFound" })
    expect(resolveTarget("/d", "/%E0%A4%A", true, () => true)).toEqual({ _tag: "NotFound" })
    expect(resolveTarget("/d", "/a%00.js", true, () => true)).toEqual({ _tag: "NotFound" })
  })
})

layer(TestApp("sqlite", { dashboard: true }), { timeout: "60 seconds" })("Dashboard served at /", (it) => {
  it.effect("/ is index.html, no-cache, with the CSP and security headers", () =>
    Effect.gen(function*() {
      const page = yield* get("/", HTML)
      expect(page.status).toBe(200)
      expect(page.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(page.headers["cache-control"]).toBe("no-cache")
      expectSecurityHeaders(page.headers)
      expect(page.text).toContain(`/assets/${scriptAsset}`)
      // The CSP allows no inline script: the built page has none.
      expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
    }))

  it.effect("hashed assets are immutable for a year; a missing one is 404, not the page", () =>
    Effect.gen(function*() {
      const asset = yield* get(`/assets/${scriptAsset}`)
      expect(asset.status).toBe(200)
      expect(asset.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      expect(asset.headers["content-type"]).toBe("text/javascript; charset=utf-8")
      expectSecurityHeaders(asset.headers)
      const missing = yield* get("/assets/index-00000000.js", HTML)
      expect(missing.status).toBe(404)
      expect(missing.text).not.toContain("<div id=\"root\">")
    }))

  it.effect("a client route reloads into the page for a browser (GET accepting HTML), and is 404 for other clients", () =>
    Effect.gen(function*() {
      const page = yield* get("/settings/api-keys", HTML)
      expect(page.status).toBe(200)
      expect(page.headers["cache-control"]).toBe("no-cache")
      expect(page.text).toContain("<div id=\"root\"></div>")
      expect((yield* get("/settings/api-keys", { accept: "application/json" })).status).toBe(404)
    }))

  it.effect("the API, its document and /docs are not shadowed; unknown API paths stay JSON 404s", () =>
    Effect.gen(function*() {
      const health = yield* get("/api/v1/health", HTML)
      expect(health.status).toBe(200)
      expect(health.headers["content-type"]).toMatch(/application\/json/)
      const unknown = yield* get("/api/v1/no-such-thing", HTML)
      expect(unknown.status).toBe(404)
      expect(JSON.parse(unknown.text)).toEqual({ detail: "Not Found" })
      const docs = yield* get("/docs", HTML)
      expect(docs.status).toBe(200)
      expect(docs.text).not.toContain("<div id=\"root\"></div>")
      expect(docs.headers["content-security-policy"]).toBeUndefined()
      expect((yield* get("/api/v1/openapi.json")).status).toBe(200)
    }))
})

layer(TestApp("sqlite"), { timeout: "60 seconds" })("Dashboard turned off", (it) => {
  it.effect("without the dashboard setting, / and client routes are the API's 404", () =>
    Effect.gen(function*() {
      const root = yield* get("/", HTML)
      expect(root.status).toBe(404)
      expect(JSON.parse(root.text)).toEqual({ detail: "Not Found" })
      expect((yield* get("/agents", HTML)).status).toBe(404)
      expect((yield* get("/api/v1/health")).status).toBe(200)
    }))
})
