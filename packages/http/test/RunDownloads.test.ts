/**
 * Run artifacts through their signed links as players fetch them, on SQLite and PostgreSQL:
 * Content-Length, byte ranges (206 with Content-Range, 416), HEAD.
 */
import { DefinitionId, OrganizationId, WorkflowId } from "@agentline/api/Ids"
import { BlobStore } from "@agentline/core/blobs/BlobStore"
import { Runs } from "@agentline/core/runs/Runs"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Clock, Effect, Stream } from "effect"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

/** A request with its raw answer: status, headers and the body's exact bytes. */
const fetchBytes = (method: "GET" | "HEAD", path: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(HttpClientRequest.make(method)(path).pipe(HttpClientRequest.setHeaders(headers)))
    return { status: response.status, headers: response.headers, body: Buffer.from(yield* response.arrayBuffer) }
  }).pipe(Effect.scoped, Effect.orDie)

/** A run whose recording is `content`; its signed link's path. */
const runWithRecording = (content: Uint8Array) =>
  Effect.gen(function*() {
    const org = yield* seedOrganization()
    const agent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "Agent", workflow_definition: definition() } })
    const runs = yield* Runs
    const stored = yield* runs.insert({
      organization_id: OrganizationId.make(org.admin.organization_id),
      workflow_id: WorkflowId.make(agent.body.id),
      campaign_id: null,
      definition_id: DefinitionId.make(agent.body.current_definition_id),
      name: "WR-DOWNLOAD",
      mode: "simulator",
      call_type: "outbound",
      initial_context: {},
      gathered_context: null,
      logs: null,
      now: new Date(yield* Clock.currentTimeMillis).toISOString()
    })
    const key = `${org.admin.organization_id}/runs/${stored.id}/recording.wav`
    yield* (yield* BlobStore).put(key, Stream.make(content), { maxBytes: 1_000_000 })
    yield* runs.update(stored.id, { artifacts: { recording: key } }, new Date().toISOString())
    const run = yield* call("GET", `/api/v1/workflow/${agent.body.id}/runs/${stored.id}`, { apiKey: org.apiKey })
    return new URL(run.body.recording_public_url).pathname
  })

// 100 KB, more than one read chunk of the file store, every byte telling its position apart.
const content = new Uint8Array(Array.from({ length: 100_000 }, (_, i) => (i * 7 + (i >> 8)) % 256))

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Run artifact downloads [${dialect}]`, (it) => {
    it.effect("the whole file with its length; a range as 206 with exactly its bytes; past the end 416; HEAD the headers alone", () =>
      Effect.gen(function*() {
        const path = yield* runWithRecording(content)

        const whole = yield* fetchBytes("GET", path)
        expect(whole.status).toBe(200)
        expect(whole.headers).toMatchObject({ "content-length": "100000", "accept-ranges": "bytes", "content-type": "audio/wav" })
        expect(whole.body.equals(content)).toBe(true)

        // Across the store's 64 KiB read chunks.
        const part = yield* fetchBytes("GET", path, { range: "bytes=65000-65535" })
        expect(part.status).toBe(206)
        expect(part.headers).toMatchObject({ "content-range": "bytes 65000-65535/100000", "content-length": "536", "content-type": "audio/wav" })
        expect(part.body.equals(content.subarray(65000, 65536))).toBe(true)

        // What a player asks first, then a seek, then the end.
        const open = yield* fetchBytes("GET", path, { range: "bytes=0-" })
        expect([open.status, open.headers["content-range"], open.body.length]).toEqual([206, "bytes 0-99999/100000", 100_000])
        const seek = yield* fetchBytes("GET", path, { range: "bytes=99990-" })
        expect(seek.body.equals(content.subarray(99990))).toBe(true)
        const tail = yield* fetchBytes("GET", path, { range: "bytes=-4" })
        expect([tail.headers["content-range"], [...tail.body]]).toEqual(["bytes 99996-99999/100000", [...content.subarray(99996)]])

        const refused = yield* fetchBytes("GET", path, { range: "bytes=100000-" })
        expect(refused.status).toBe(416)
        expect(refused.headers["content-range"]).toBe("bytes */100000")
        expect(refused.body.length).toBe(0)

        // Several disjoint ranges: the whole file.
        const several = yield* fetchBytes("GET", path, { range: "bytes=0-1,10-11" })
        expect([several.status, several.body.length]).toEqual([200, 100_000])

        const head = yield* fetchBytes("HEAD", path)
        expect(head.status).toBe(200)
        expect(head.headers).toMatchObject({ "content-length": "100000", "accept-ranges": "bytes" })
        expect(head.body.length).toBe(0)
        const headRange = yield* fetchBytes("HEAD", path, { range: "bytes=10-19" })
        expect([headRange.status, headRange.headers["content-range"], headRange.headers["content-length"], headRange.body.length])
          .toEqual([206, "bytes 10-19/100000", "10", 0])

        // A range does not get past the link's check.
        const tampered = yield* fetchBytes("GET", path.replace("/recording", "/transcript"), { range: "bytes=0-9" })
        expect(tampered.status).toBe(404)
      }))

    it.effect("an empty artifact: 200 with length 0, and any range 416", () =>
      Effect.gen(function*() {
        const path = yield* runWithRecording(new Uint8Array(0))
        const whole = yield* fetchBytes("GET", path)
        expect([whole.status, whole.headers["content-length"], whole.body.length]).toEqual([200, "0", 0])
        const range = yield* fetchBytes("GET", path, { range: "bytes=0-" })
        expect([range.status, range.headers["content-range"]]).toEqual([416, "bytes */0"])
      }))
  })
}
