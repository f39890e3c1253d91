/**
 * The request guard behind the embedding `fetch` handler (web requests: no Node socket to read from):
 * the same limits as the standalone server (issue 16, defects 4–6).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { type Handlers, makeHandlers } from "../src/Embed.js"
import { DEFAULT_BODY_LIMIT, MAX_JSON_DEPTH } from "../src/RequestLimits.js"

let handlers: Handlers

beforeAll(async () => {
  const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-embed-"))
  handlers = await makeHandlers({ dataDir, secretKey: "embed-test-secret" })
}, 60_000)

afterAll(() => handlers?.dispose())

const post = (path: string, body: BodyInit, headers: Record<string, string> = {}) =>
  handlers.fetch(new Request(`http://localhost${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...headers },
    ...(body instanceof ReadableStream ? { duplex: "half" } : {})
  } as RequestInit))

describe("the request guard behind the fetch handler", () => {
  it("a clean body reaches the handler intact", async () => {
    const reply = await post("/api/v1/auth/login", JSON.stringify({ email: "nobody@example.test", password: "wrong-password" }))
    expect(reply.status).toBe(401)
  })

  it("NUL and deep nesting: 422", async () => {
    const nul = await post("/api/v1/auth/login", JSON.stringify({ email: "a\u0000@x.test", password: "p" }))
    expect(nul.status).toBe(422)
    expect((await nul.json()).detail[0].loc).toEqual(["body", "email"])
    const deep = await post("/api/v1/auth/login", "[".repeat(MAX_JSON_DEPTH + 1))
    expect(deep.status).toBe(422)
    expect((await deep.json()).detail[0].type).toBe("json_too_deep")
  })

  it("a streamed body without a length is cut at the route's limit: 413", async () => {
    let sent = 0
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024))
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length
        controller.enqueue(chunk)
      }
    })
    const reply = await post("/api/v1/user/api-keys", endless)
    expect(reply.status).toBe(413)
    expect((await reply.json()).detail).toContain(`${DEFAULT_BODY_LIMIT} bytes`)
    // The endless body was read only a little past the limit.
    expect(sent).toBeLessThan(DEFAULT_BODY_LIMIT * 2)
  })
})
