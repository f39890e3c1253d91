/**
 * Browser tests of the real dashboard against the real server: `agentline serve` (the built server and
 * the built dashboard, as `npm start` runs them) on SQLite and on PostgreSQL, driven by Debian's
 * Chromium through `playwright-core` (which never downloads a browser).
 *
 * A test file calls `dashboardSuite(...)` once; it runs the file's tests once per database it names
 * (SQLite unless it asks for PostgreSQL too, see `browserDialects`), starting one server per database and one browser for the whole file (each test gets a fresh browser context,
 * so no cookies leak between tests). Every page fails its test on an uncaught script error or a
 * Content-Security-Policy violation.
 *
 * ```ts
 * dashboardSuite("API keys", (dashboard) => {
 *   it("creates a key", async () => {
 *     const user = await dashboard.newUser({ role: "admin" })
 *     const page = await dashboard.loggedIn(user)
 *     await page.getByRole("link", { name: "Settings" }).click()
 *     await dashboard.screenshot(page, "settings-api-keys")
 *   })
 * })
 * ```
 */
import { Testing } from "@agentline/sql"
import { Effect, Exit, Scope } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest"
import { bootstrap, type ServerProcess, startServer, tempDir } from "../../../http/test/Processes.js"

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it); `AGENTLINE_CHROMIUM` names another. */
export const chromiumPath = process.env.AGENTLINE_CHROMIUM ?? "/usr/bin/chromium"

/** Where `screenshot` writes: the repository's docs/screenshots (linked from the README). */
export const screenshotDir = NodePath.resolve(import.meta.dirname, "../../../../docs/screenshots")

/** Where a failed test's pages are pictured. */
const failureDir = NodePath.join(NodeOs.tmpdir(), "agentline-browser-failures")

export type Dialect = "sqlite" | "pg"
export type Role = "admin" | "member"

export interface User {
  readonly email: string
  readonly password: string
  readonly role: Role
}

export interface Viewport {
  readonly width: number
  readonly height: number
}

export const LAPTOP: Viewport = { width: 1280, height: 800 }
export const PHONE: Viewport = { width: 375, height: 740 }

export interface Dashboard {
  readonly dialect: Dialect
  /** The server's base URL, e.g. `http://127.0.0.1:41234` (the dashboard is at `/`). */
  readonly url: string
  /**
   * The organization's first administrator, created with `agentline users create`: its password is
   * temporary, so its first login asks for a new one. Meant for the first-login test; other tests use
   * `newUser`.
   */
  readonly admin: User
  /** An API key of `admin` (API keys are not held back by the pending password change). */
  readonly adminApiKey: string
  /** Calls the API as `admin` with its key; throws on a non-2xx answer. */
  readonly api: (method: string, path: string, body?: unknown) => Promise<any>
  /**
   * A new user of the organization (created through the API). By default the password is already
   * changed, so logging in goes straight to the dashboard; `temporary: true` leaves it temporary.
   */
  readonly newUser: (options?: { readonly role?: Role; readonly temporary?: boolean }) => Promise<User>
  /** A fresh browser context (no cookies) and page; closed after the test. */
  readonly newPage: (viewport?: Viewport) => Promise<Page>
  /** A fresh page logged in as `user` through the login form, on the page after login. */
  readonly loggedIn: (user: User, viewport?: Viewport) => Promise<Page>
  /** Saves a PNG of the page as docs/screenshots/<name>.png (one database's run writes them: SQLite's). */
  readonly screenshot: (page: Page, name: string, options?: { readonly fullPage?: boolean }) => Promise<void>
  /** The server's output so far (for failure messages). */
  readonly serverOutput: () => string
}

/** The dialects a run covers: SQLite always, PostgreSQL when the global setup reached it. */
export const dialects: ReadonlyArray<Dialect> = Testing.dialects

/**
 * The dialects a browser suite runs on unless it asks for more: SQLite only. The dashboard is a client
 * of the API, whose every operation is tested on both databases in `packages/http`; a browser suite
 * run twice costs a second server and every page again (about half the browser tests' time in CI) and
 * checks the same pages. The campaigns suite, where the most storage lies behind the pages, runs on
 * both; `AGENTLINE_BROWSER_PG=1` runs every suite on both.
 */
export const browserDialects: ReadonlyArray<Dialect> = process.env.AGENTLINE_BROWSER_PG === "1" ? dialects : ["sqlite"]

let userCounter = 0

const call = async (url: string, init: RequestInit & { readonly apiKey?: string; readonly token?: string; readonly json?: unknown }) => {
  const headers: Record<string, string> = {}
  if (init.apiKey !== undefined) headers["x-api-key"] = init.apiKey
  if (init.token !== undefined) headers["authorization"] = `Bearer ${init.token}`
  if (init.json !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(url, {
    ...init,
    headers: { ...headers, ...(init.headers as Record<string, string> | undefined) },
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {})
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${init.method ?? "GET"} ${url} → ${response.status}: ${text}`)
  return text === "" ? undefined : JSON.parse(text)
}

/** Logs in through the form of a page that shows it. */
export const logIn = async (page: Page, user: Pick<User, "email" | "password">) => {
  await page.getByLabel("Email").fill(user.email)
  await page.getByLabel("Password", { exact: true }).fill(user.password)
  await page.getByRole("button", { name: "Log in" }).click()
}

/**
 * Declares `name`'s tests once per database: `body` gets the `Dashboard` of that database's server
 * (valid inside tests and hooks, not while declaring them).
 */
export const dashboardSuite = (
  name: string,
  body: (dashboard: Dashboard) => void,
  /**
   * The server's extra environment (e.g. `AGENTLINE_WEBHOOK_ALLOW_PRIVATE` for tools on this machine); a
   * function is called when the server starts (after the file's own `beforeAll`s, e.g. a fake model's URL).
   */
  options: {
    readonly serverEnv?: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>)
    /** The databases to run on (default `browserDialects`). */
    readonly dialects?: ReadonlyArray<Dialect>
    /** More Chromium flags (e.g. a fake microphone); a function is called when the browser starts. */
    readonly browserArgs?: () => ReadonlyArray<string>
  } = {}
) => {
  let browser: Browser | undefined
  beforeAll(async () => {
    if (!NodeFs.existsSync(chromiumPath)) {
      throw new Error(`No Chromium at ${chromiumPath}: install Debian's (apt-get install chromium) or set AGENTLINE_CHROMIUM`)
    }
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      // Tests run as root in containers, where Chromium's sandbox cannot start.
      args: ["--no-sandbox", "--disable-dev-shm-usage", ...(options.browserArgs?.() ?? [])]
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  for (const dialect of options.dialects ?? browserDialects) {
    describe(`${name} [${dialect}]`, () => {
      let server: ServerProcess | undefined
      let scope: Scope.CloseableScope | undefined
      let admin: User | undefined
      let adminApiKey: string | undefined
      const contexts: Array<BrowserContext> = []
      const problems: Array<string> = []

      beforeAll(async () => {
        const dataDir = tempDir()
        let databaseUrl: string | undefined
        if (dialect === "pg") {
          scope = Effect.runSync(Scope.make())
          databaseUrl = (await Effect.runPromise(Scope.extend(Testing.freshPgDatabase, scope))).url
        }
        const organization = `dash${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
        // The command line creates the administrator with a temporary password and a key for it.
        adminApiKey = await bootstrap(databaseUrl, dataDir, organization)
        admin = { email: `admin@${organization}.test`, password: "admin-password", role: "admin" }
        const serverEnv = typeof options.serverEnv === "function" ? options.serverEnv() : options.serverEnv
        server = await startServer(databaseUrl, dataDir, { ...serverEnv })
      }, 180_000)

      afterEach(async ({ task }) => {
        // A failed test leaves a picture of each of its pages, and the page's text, for the failure report.
        if (task.result?.state === "fail") {
          NodeFs.mkdirSync(failureDir, { recursive: true })
          const base = NodePath.join(failureDir, `${task.name.replace(/[^A-Za-z0-9]+/g, "-").slice(0, 80)}-${dialect}`)
          for (const [index, page] of contexts.flatMap((c) => c.pages()).entries()) {
            await page.screenshot({ path: `${base}-${index}.png`, fullPage: true }).catch(() => undefined)
            const text = await page.locator("body").innerText().catch(() => "")
            console.error(`[browser] ${task.name} [${dialect}] page ${index} at ${page.url()} (${base}-${index}.png):\n${text}`)
          }
        }
        const found = problems.splice(0)
        await Promise.all(contexts.splice(0).map((context) => context.close().catch(() => undefined)))
        expect(found, "script errors or Content-Security-Policy violations in the page").toEqual([])
      })

      afterAll(async () => {
        await server?.stop()
        if (scope !== undefined) await Effect.runPromise(Scope.close(scope, Exit.void))
      }, 30_000)

      const need = <A>(value: A | undefined, what: string): A => {
        if (value === undefined) throw new Error(`${what} is not ready: use the dashboard inside tests and hooks`)
        return value
      }

      const newPage = async (viewport: Viewport = LAPTOP) => {
        const context = await need(browser, "The browser").newContext({ viewport: { ...viewport }, baseURL: need(server, "The server").url })
        contexts.push(context)
        // Below the test timeout, so a missing element fails with the locator's own message.
        context.setDefaultTimeout(10_000)
        const page = await context.newPage()
        page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
        page.on("console", (message) => {
          const text = message.text()
          if (message.type() === "error" && /Content Security Policy|Refused to/i.test(text)) problems.push(`CSP: ${text}`)
        })
        return page
      }

      const dashboard: Dashboard = {
        dialect,
        get url() {
          return need(server, "The server").url
        },
        get admin() {
          return need(admin, "The administrator")
        },
        get adminApiKey() {
          return need(adminApiKey, "The administrator's key")
        },
        api: (method, path, body) =>
          call(`${need(server, "The server").url}${path}`, { method, apiKey: need(adminApiKey, "The key"), json: body }),
        newUser: async (options = {}) => {
          const url = need(server, "The server").url
          const role = options.role ?? "member"
          const email = `user${++userCounter}-${Math.random().toString(36).slice(2, 6)}@${dialect}.example.com`
          const temporary = "temporary-password"
          await call(`${url}/api/v1/users`, {
            method: "POST",
            apiKey: need(adminApiKey, "The key"),
            json: { email, password: temporary, role }
          })
          if (options.temporary === true) return { email, password: temporary, role }
          const password = `password-of-${email}`
          const login = await call(`${url}/api/v1/auth/login`, { method: "POST", json: { email, password: temporary } })
          await call(`${url}/api/v1/auth/change-password`, {
            method: "POST",
            token: login.token,
            json: { current_password: temporary, new_password: password }
          })
          await call(`${url}/api/v1/auth/logout`, { method: "POST", token: login.token })
          return { email, password, role }
        },
        newPage,
        loggedIn: async (user, viewport) => {
          const page = await newPage(viewport)
          await page.goto("/")
          await logIn(page, user)
          await page.getByRole("navigation", { name: "Main" }).waitFor()
          return page
        },
        screenshot: async (page, name, options = {}) => {
          if (dialect !== "sqlite") return
          NodeFs.mkdirSync(screenshotDir, { recursive: true })
          await page.screenshot({ path: NodePath.join(screenshotDir, `${name}.png`), fullPage: options.fullPage ?? true })
        },
        serverOutput: () => server?.output() ?? ""
      }
      body(dashboard)
    })
  }
}
