import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { startHost } from "../embed-node-http.js"
import { program } from "../typed-client.js"
import { Embed } from "@agentline/http"

describe("embedding in plain node:http", () => {
  it("serves Agentline under /api/v1 next to the host's own routes, and the typed client talks to it", async () => {
    const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-embed-"))
    const host = await startHost(0, dataDir)
    try {
      const port = (host.server.address() as { port: number }).port
      const base = `http://127.0.0.1:${port}`
      expect(await (await fetch(`${base}/`)).text()).toBe("the host application\n")
      const health = await fetch(`${base}/api/v1/health`)
      expect(health.status).toBe(200)
      expect((await health.json()).status).toBe("ok")
      const unauthorized = await fetch(`${base}/api/v1/user/api-keys`)
      expect(unauthorized.status).toBe(401)
      // the typed client gets a typed 401 failure without a key
      const exit = await Effect.runPromiseExit(program(base, "agl_wrong"))
      expect(exit._tag).toBe("Failure")
    } finally {
      await host.close()
      NodeFs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("the fetch-style handler answers a web Request", async () => {
    const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-embed-"))
    const handlers = await Embed.makeHandlers({ dataDir })
    try {
      const response = await handlers.fetch(new Request("http://embedded.test/api/v1/health"))
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ status: "ok", deployment_mode: "oss" })
      const missing = await handlers.fetch(new Request("http://embedded.test/api/v1/nope"))
      expect(missing.status).toBe(404)
    } finally {
      await handlers.dispose()
      NodeFs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

