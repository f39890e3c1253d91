/**
 * Upload URLs (issue 16, defects 8 and 14): any allowed file name gives a URL that works, a URL works
 * once (a second PUT never replaces the file), and the request log never shows a URL's signature.
 */
import { Uploads } from "@agentline/core/uploads/Uploads"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Effect, HashMap, Layer, Logger, Stream } from "effect"
import { redactUrl } from "../src/RequestLog.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const put = (uploadUrl: string, body: string) =>
  Effect.gen(function*() {
    const url = new URL(uploadUrl)
    const response = yield* (yield* HttpClient.HttpClient).execute(
      HttpClientRequest.put(url.pathname + url.search).pipe(HttpClientRequest.bodyText(body, "text/csv"))
    )
    const text = yield* response.text
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) } as Reply
  }).pipe(Effect.scoped, Effect.orDie)

const presigned = (apiKey: string, fileName: string, size: number) =>
  Effect.map(call("POST", "/api/v1/storage/presigned-upload-url", { apiKey, body: { file_name: fileName, file_size: size } }), (reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return reply.body as { upload_url: string; file_key: string }
  })

const stored = (principal: Parameters<Uploads["open"]>[0], fileKey: string) =>
  Effect.gen(function*() {
    const chunks = yield* Stream.runCollect(yield* (yield* Uploads).open(principal, fileKey))
    return Buffer.concat(Chunk.toArray(chunks)).toString("utf8")
  })

const FIRST = "phone_number\n+14155550100\n"
const SECOND = "phone_number\n+14155550199\n"

describe("redactUrl", () => {
  it.each([
    ["/api/v1/health", "/api/v1/health"],
    ["/api/v1/storage/upload/1/contacts/a.csv?expires=17&signature=abc-DEF_1", "/api/v1/storage/upload/1/contacts/a.csv?expires=17&signature=REDACTED"],
    ["/api/v1/storage/upload/1/contacts/a.csv?signature=", "/api/v1/storage/upload/1/contacts/a.csv?signature=REDACTED"],
    ["/api/v1/campaign/?page=2&limit=50", "/api/v1/campaign/?page=2&limit=50"],
    ["/api/v1/user/api-keys?include_archived=true&token=secret", "/api/v1/user/api-keys?include_archived=true&token=REDACTED"],
    ["/api/v1/x?Signature=a&X-Amz-Signature=b", "/api/v1/x?Signature=REDACTED&X-Amz-Signature=REDACTED"],
    ["/api/v1/public/download/workflow/12.1700000000.c2lnbmF0dXJl/transcript", "/api/v1/public/download/workflow/12.1700000000.REDACTED/transcript"],
    ["/api/v1/public/download/workflow/garbage/recording", "/api/v1/public/download/workflow/garbage.REDACTED/recording"],
    ["/api/v1/x?", "/api/v1/x"]
  ])("%s → %s", (url, expected) => {
    expect(redactUrl(url)).toBe(expected)
  })
})

for (const dialect of dialects) {
  const logged: Array<{ readonly message: string; readonly url: unknown }> = []
  // A logger gets the messages of one log call as an array.
  const messageText = (message: unknown): string => (Array.isArray(message) ? message.map(String).join(",") : String(message))
  const capture = Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ annotations, message }) => {
      logged.push({ message: messageText(message), url: HashMap.get(annotations, "http.url").pipe((o) => o._tag === "Some" ? o.value : undefined) })
    })
  )

  layer(TestApp(dialect, {}, true).pipe(Layer.provide(capture)), { timeout: "60 seconds" })(`Upload URLs [${dialect}]`, (it) => {
    it.effect("a file name of 255 characters gives an upload URL that works; the name is kept whole", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        for (const name of [`${"n".repeat(251)}.csv`, `${"ä b".repeat(60)}.CSV`, `${"x".repeat(60)}.csv`]) {
          const target = yield* presigned(org.apiKey, name, FIRST.length)
          const reply = yield* put(target.upload_url, FIRST)
          expect(reply.status, `${name}: ${JSON.stringify(reply.body)}`).toBe(200)
          const upload = yield* (yield* Uploads).requireUploaded(org.principal, target.file_key)
          expect(upload.file_name).toBe(name)
          expect(yield* stored(org.principal, target.file_key)).toBe(FIRST)
        }
      }))

    it.effect("an upload URL works once: a second PUT is 409 and the stored file stays as it was", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, "contacts.csv", 100)
        expect((yield* put(target.upload_url, FIRST)).status).toBe(200)
        const again = yield* put(target.upload_url, SECOND)
        expect(again.status).toBe(409)
        expect(again.body.detail).toMatch(/already been used: an upload URL works once/)
        expect(yield* stored(org.principal, target.file_key)).toBe(FIRST)
        expect((yield* (yield* Uploads).requireUploaded(org.principal, target.file_key)).stored_size).toBe(FIRST.length)
      }))

    it.effect("of two PUTs at once to one URL, one stores its file and the other is refused", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, "contacts.csv", 100)
        const [a, b] = yield* Effect.all([put(target.upload_url, FIRST), put(target.upload_url, SECOND)], { concurrency: 2 })
        expect([a.status, b.status].sort()).toEqual([200, 409])
        expect(yield* stored(org.principal, target.file_key)).toBe(a.status === 200 ? FIRST : SECOND)
      }))

    it.effect("a PUT that stores nothing (too large) leaves the URL usable", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, "contacts.csv", FIRST.length)
        expect((yield* put(target.upload_url, FIRST + FIRST)).status).toBe(413)
        expect((yield* put(target.upload_url, FIRST)).status).toBe(200)
        expect((yield* put(target.upload_url, FIRST)).status).toBe(409)
      }))

    it.effect("the request log shows upload URLs without their signature", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, "contacts.csv", 100)
        const signature = new URL(target.upload_url).searchParams.get("signature")!
        expect((yield* put(target.upload_url, FIRST)).status).toBe(200)
        expect((yield* put(target.upload_url, FIRST)).status).toBe(409)
        const lines = logged.filter((line) => String(line.url).includes(target.file_key))
        expect(lines.length).toBe(2)
        for (const line of lines) expect(line.url).toMatch(/\?expires=\d+&signature=REDACTED$/)
        expect(JSON.stringify(logged)).not.toContain(signature)
      }))
  })
}
