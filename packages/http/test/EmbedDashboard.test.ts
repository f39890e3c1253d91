/**
 * The embedding handlers answer the API only, unless the host asks for the dashboard too
 * (`makeHandlers({ dashboard: true })`, docs/embedding.md and docs/dashboard.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { CONTENT_SECURITY_POLICY } from "../src/Dashboard.js"
import { type Handlers, makeHandlers } from "../src/Embed.js"

let apiOnly: Handlers
let withDashboard: Handlers

beforeAll(async () => {
  const temp = () => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-embed-"))
  apiOnly = await makeHandlers({ dataDir: temp(), secretKey: "embed-test-secret" })
  withDashboard = await makeHandlers({ dataDir: temp(), secretKey: "embed-test-secret", dashboard: true })
}, 60_000)

afterAll(async () => {
  await apiOnly?.dispose()
  await withDashboard?.dispose()
})

const page = (handlers: Handlers, path: string) =>
  handlers.fetch(new Request(`http://localhost${path}`, { headers: { accept: "text/html" } }))

describe("the dashboard behind the embedding handlers", () => {
  it("is not served by default: / is the API's 404", async () => {
    const reply = await page(apiOnly, "/")
    expect(reply.status).toBe(404)
    expect(await reply.json()).toEqual({ detail: "Not Found" })
    expect((await page(apiOnly, "/api/v1/health")).status).toBe(200)
  })

  it("is served when asked, with its security headers, next to the API", async () => {
    const reply = await page(withDashboard, "/settings/api-keys")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY)
    expect(await reply.text()).toContain("<div id=\"root\"></div>")
    expect((await page(withDashboard, "/api/v1/health")).status).toBe(200)
  })
})
