/**
 * Serves the built dashboard (`@agentline/dashboard`'s `dist/`) at `/`, next to the API.
 *
 * - `/assets/*` are Vite's content-hashed files: `Cache-Control: public, max-age=31536000, immutable`
 *   (a new build has new names); a missing one is 404, never the page.
 * - `index.html` is `no-cache` (revalidated on every load, so a new build is picked up at once), and it
 *   also answers any other GET that accepts HTML and is not a file: the dashboard's client-side routes
 *   (`/agents/3`, `/settings/api-keys`) work on reload and from bookmarks.
 * - `/api/*` and `/docs` are never shadowed: the router prefers their exact routes, and anything else
 *   under them stays the API's JSON 404.
 *
 * Every dashboard response carries a strict Content-Security-Policy and the other security headers
 * (`securityHeaders`). The dashboard reads and writes through `/api/v1` only; nothing here touches data.
 */
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { RouteNotFound } from "@effect/platform/HttpServerError"
import { Effect, Option } from "effect"
import * as NodeFs from "node:fs"
import { createRequire } from "node:module"
import * as NodePath from "node:path"

/**
 * The Content-Security-Policy of the dashboard's responses.
 *
 * - Scripts, styles, images, fonts and API calls come from this origin only: no inline script (the
 *   built index.html has none), no `eval`.
 * - `style-src 'self'` without `'unsafe-inline'`: the graph editor (@xyflow/react, with d3-zoom/d3-drag)
 *   positions nodes and edges through inline *style properties* set from script (React's `style` prop
 *   and `element.style`), which go through the CSSOM and are not governed by CSP; it injects no
 *   `<style>` element and sets no `style` attribute, and its stylesheet is bundled into our CSS file.
 *   The browser tests fail on any CSP violation report, so a dependency that starts needing more shows.
 * - `img-src` adds `data:` and `blob:` for images made in the page (none today from outside).
 * - No framing (`frame-ancestors 'none'`, against clickjacking), no `<base>`, no plugins, forms post
 *   to this origin only.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "media-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
  "form-action 'self'"
].join("; ")

export const securityHeaders: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY",
  "cross-origin-opener-policy": "same-origin"
}

export const IMMUTABLE = "public, max-age=31536000, immutable"
export const NO_CACHE = "no-cache"

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".webmanifest": "application/manifest+json"
}

/** The API's own paths: never answered with the dashboard. */
export const isReservedPath = (pathname: string): boolean =>
  pathname === "/api" || pathname.startsWith("/api/") || pathname === "/docs" || pathname.startsWith("/docs/")

/** What a GET for `pathname` is: a file of the build, the page (a client route), or nothing. */
export type Target =
  | { readonly _tag: "File"; readonly file: string; readonly cacheControl: string }
  | { readonly _tag: "Page" }
  | { readonly _tag: "NotFound" }

/**
 * Decides what to answer; pure but for `isFile`, so the rules are tested without a server. A path
 * that leaves the directory (`..`, encoded or not) is not found.
 */
export const resolveTarget = (
  directory: string,
  pathname: string,
  acceptsHtml: boolean,
  isFile: (path: string) => boolean
): Target => {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return { _tag: "NotFound" }
  }
  if (decoded.includes("\0") || decoded.includes("\\")) return { _tag: "NotFound" }
  if (decoded === "/" || decoded === "/index.html") return { _tag: "Page" }
  const file = NodePath.resolve(directory, `.${decoded}`)
  const inside = file.startsWith(directory.endsWith(NodePath.sep) ? directory : directory + NodePath.sep)
  if (inside && isFile(file)) {
    return { _tag: "File", file, cacheControl: decoded.startsWith("/assets/") ? IMMUTABLE : NO_CACHE }
  }
  // A missing asset or file-like path is a 404: answering it with the page would hide broken builds.
  const last = decoded.slice(decoded.lastIndexOf("/") + 1)
  if (decoded.startsWith("/assets/") || last.includes(".")) return { _tag: "NotFound" }
  return acceptsHtml ? { _tag: "Page" } : { _tag: "NotFound" }
}

/**
 * The built dashboard's directory, found through the `@agentline/dashboard` package; `None` when the
 * package is not installed or not built.
 */
export const locateAssets = (): Option.Option<string> => {
  try {
    const manifest = createRequire(import.meta.url).resolve("@agentline/dashboard/package.json")
    const directory = NodePath.join(NodePath.dirname(manifest), "dist")
    return NodeFs.existsSync(NodePath.join(directory, "index.html")) ? Option.some(directory) : Option.none()
  } catch {
    return Option.none()
  }
}

const isFile = (path: string) => {
  try {
    return NodeFs.statSync(path).isFile()
  } catch {
    return false
  }
}

const contentTypeOf = (file: string) => CONTENT_TYPES[NodePath.extname(file).toLowerCase()] ?? "application/octet-stream"

const serveFile = (file: string, cacheControl: string) =>
  Effect.map(
    Effect.promise(() => NodeFs.promises.readFile(file)),
    (bytes) =>
      HttpServerResponse.uint8Array(bytes, {
        contentType: contentTypeOf(file),
        headers: { ...securityHeaders, "cache-control": cacheControl }
      })
  )

const notFound = HttpServerResponse.text("Not Found", {
  status: 404,
  headers: { ...securityHeaders, "cache-control": NO_CACHE }
})

/** The routes serving `directory` (a built dashboard). */
export const layer = (directory: string) => {
  const root = NodePath.resolve(directory)
  const index = NodePath.join(root, "index.html")
  const handle = Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const pathname = new URL(request.url, "http://localhost").pathname
    // Unknown API paths keep the API's JSON 404.
    if (isReservedPath(pathname)) return yield* new RouteNotFound({ request })
    const accept = request.headers["accept"] ?? ""
    const target = resolveTarget(root, pathname, accept.includes("text/html"), isFile)
    switch (target._tag) {
      case "File":
        return yield* serveFile(target.file, target.cacheControl)
      case "Page":
        return yield* serveFile(index, NO_CACHE)
      case "NotFound":
        return notFound
    }
  })
  return HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      yield* router.get("/", handle)
      yield* router.get("/*", handle)
    })
  )
}
