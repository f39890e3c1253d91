import { BlobStore } from "@agentline/core/blobs/BlobStore"
import {
  acceptsContentType,
  contactsKey,
  isRecordingKeyOf,
  issuedFor,
  kindOfKey,
  mediaType,
  organizationOfKey,
  recordingKey,
  sanitizeFileName,
  uploadSignature,
  verifyUploadSignature
} from "@agentline/core/uploads/Upload"
import { PresignRequest } from "@agentline/api/uploads/Upload"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it, layer } from "@effect/vitest"
import { Chunk, Clock, Effect, Either, FastCheck, Option, Redacted, Schema, Stream, TestClock } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { ServerConfig } from "../src/ServerConfig.js"
import { call, dialects, type Reply, seedOrganization, TestApp } from "./Harness.js"

const secret = Redacted.make("test-secret-key")
const MiB = 1024 * 1024
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/

describe("upload rules", () => {
  it("file names keep only [A-Za-z0-9._-], the .csv ending and at most 40 characters", () => {
    expect(sanitizeFileName("contacts.csv")).toBe("contacts.csv")
    expect(sanitizeFileName("my contacts (1).CSV")).toBe("my_contacts__1_.CSV")
    expect(sanitizeFileName("../../etc/passwd.csv")).toBe(".._.._etc_passwd.csv")
    expect(sanitizeFileName("änderung.csv")).toBe("_nderung.csv")
    expect(sanitizeFileName(`${"a".repeat(300)}.csv`)).toBe(`${"a".repeat(36)}.csv`)
    expect(sanitizeFileName(`${"a".repeat(40)}.csv`)).toBe(`${"a".repeat(36)}.csv`)
    expect(sanitizeFileName(`${"a".repeat(36)}.csv`)).toBe(`${"a".repeat(36)}.csv`)
  })

  it.prop("sanitized names are safe and keep the extension", [FastCheck.string({ maxLength: 251 })], ([stem]) => {
    const name = sanitizeFileName(`${stem}.csv`)
    expect(name).toMatch(/^[A-Za-z0-9._-]{4,40}$/)
    expect(name.endsWith(".csv")).toBe(true)
  })

  it.prop(
    "a contacts key names its organization, and nothing else passes as one",
    [FastCheck.integer({ min: 1, max: 2 ** 31 - 1 }), FastCheck.uuid(), FastCheck.string({ minLength: 1, maxLength: 255 })],
    ([organizationId, uuid, name]) => {
      const key = contactsKey(organizationId, uuid, name)
      expect(key.startsWith(`${organizationId}/contacts/${uuid}_`)).toBe(true)
      // the last part is a path parameter of the upload URL: the router refuses more than 100 characters
      expect(key.split("/")[2]!.length).toBeLessThanOrEqual(100)
      expect(organizationOfKey(key)).toEqual(Option.some(organizationId))
    }
  )

  it("recording keys: named by their recording id, of their organization, a kind of their own; PUTs send WAV or the declared type", () => {
    const key = recordingKey(7, "rec_ab12", "My greeting (final).wav")
    expect(key).toBe("7/recordings/rec_ab12.My_greeting__final_.wav")
    expect(organizationOfKey(key)).toEqual(Option.some(7))
    expect(kindOfKey(key)).toBe("recordings")
    expect(kindOfKey(contactsKey(7, "u", "c.csv"))).toBe("contacts")
    expect(isRecordingKeyOf(7, key)).toBe(true)
    expect(isRecordingKeyOf(8, key)).toBe(false)
    expect(isRecordingKeyOf(7, contactsKey(7, "u", "c.csv"))).toBe(false)
    expect(isRecordingKeyOf(7, "7/recordings/a/b.wav")).toBe(false)
    expect(issuedFor(7, "rec_ab12", key)).toBe(true)
    expect(issuedFor(7, "rec_ab", key)).toBe(false)
    expect(issuedFor(7, "rec", key)).toBe(false)
    expect(issuedFor(7, "rec_ab12.My", key)).toBe(false)
    expect(issuedFor(8, "rec_ab12", key)).toBe(false)
    const cases: ReadonlyArray<[string | undefined, string, boolean]> = [
      ["audio/wav", "audio/wav", true],
      ["audio/x-wav", "audio/wav", true],
      ["Audio/Wave; codecs=1", "audio/wav", true],
      ["audio/mpeg", "audio/mpeg", true],
      ["audio/mpeg", "audio/wav", false],
      ["text/csv", "audio/wav", false],
      [undefined, "audio/wav", false]
    ]
    for (const [sent, declared, accepted] of cases) expect(acceptsContentType(sent, declared, "recordings"), `${sent} / ${declared}`).toBe(accepted)
  })

  it("keys of other shapes have no organization", () => {
    for (const key of ["", "9999999999999/contacts/x.csv", "2147483648/recordings/x.wav", "2147483648/contacts/x.csv", "contacts/x.csv", "0/contacts/x.csv", "01/contacts/x.csv", "1/other/x.csv", "1/contacts/", "1/contacts/a/b.csv", "a/contacts/x.csv"]) {
      expect(organizationOfKey(key), key).toEqual(Option.none())
    }
  })

  it.prop(
    "a signature holds only for its key, expiry, size and secret, and only before the expiry",
    [FastCheck.string({ minLength: 1 }), FastCheck.integer({ min: 1, max: 2 ** 40 }), FastCheck.integer({ min: 1, max: 2 ** 40 })],
    ([key, expires, size]) => {
      const signature = uploadSignature(secret, key, expires, size)
      const before = expires * 1000 - 1
      expect(verifyUploadSignature(secret, key, String(expires), signature, size, before)).toBe(true)
      expect(verifyUploadSignature(secret, key, String(expires), signature, size, expires * 1000)).toBe(false)
      expect(verifyUploadSignature(secret, `${key}x`, String(expires), signature, size, before)).toBe(false)
      expect(verifyUploadSignature(secret, key, String(expires + 1), signature, size, before)).toBe(false)
      expect(verifyUploadSignature(secret, key, String(expires), signature, size + 1, before)).toBe(false)
      expect(verifyUploadSignature(Redacted.make("another-secret"), key, String(expires), signature, size, before)).toBe(false)
      expect(verifyUploadSignature(secret, key, String(expires), signature.slice(1), size, before)).toBe(false)
      expect(verifyUploadSignature(secret, key, String(expires), "", size, before)).toBe(false)
    }
  )

  it("an expiry that is not a plain number never verifies", () => {
    const signature = uploadSignature(secret, "1/contacts/a.csv", 100, 5)
    for (const expires of ["", "1e2", "0100x", "-100", " 100", "100.0"]) {
      expect(verifyUploadSignature(secret, "1/contacts/a.csv", expires, signature, 5, 0), expires).toBe(false)
    }
    expect(verifyUploadSignature(secret, "1/contacts/a.csv", "100", signature, 5, 0)).toBe(true)
  })

  it("content types: text/csv with any parameters, or the declared type", () => {
    expect(mediaType("Text/CSV; charset=utf-8")).toBe("text/csv")
    expect(mediaType(undefined)).toBe("")
    const cases: ReadonlyArray<[string | undefined, string, boolean]> = [
      ["text/csv", "text/csv", true],
      ["text/csv; charset=utf-8", "text/csv", true],
      ["TEXT/CSV", "text/plain", true],
      ["text/plain", "text/plain", true],
      ["text/plain; charset=utf-8", "text/plain", true],
      ["application/vnd.ms-excel", "application/vnd.ms-excel", true],
      ["text/plain", "text/csv", false],
      ["application/json", "text/csv", false],
      ["application/octet-stream", "text/csv", false],
      ["", "text/csv", false],
      [undefined, "text/csv", false]
    ]
    for (const [sent, declared, accepted] of cases) expect(acceptsContentType(sent, declared), `${sent} / ${declared}`).toBe(accepted)
  })

  it("the presign request: .csv names of 1 to 255 characters, a positive integer size, a known content type", () => {
    const decode = Schema.decodeUnknownEither(PresignRequest)
    expect(decode({ file_name: "a.csv", file_size: 1 })).toEqual(Either.right({ file_name: "a.csv", file_size: 1, content_type: "text/csv" }))
    expect(Either.isRight(decode({ file_name: "A.CSV", file_size: 1, content_type: "text/plain" }))).toBe(true)
    expect(Either.isRight(decode({ file_name: `${"a".repeat(251)}.csv`, file_size: 1 }))).toBe(true)
    const refused = [
      { file_name: "a.txt", file_size: 1 },
      { file_name: "a.csv.gz", file_size: 1 },
      { file_name: "csv", file_size: 1 },
      { file_name: "", file_size: 1 },
      { file_name: `${"a".repeat(252)}.csv`, file_size: 1 },
      { file_name: "a.csv", file_size: 0 },
      { file_name: "a.csv", file_size: -1 },
      { file_name: "a.csv", file_size: 1.5 },
      { file_name: "a.csv", file_size: 1, content_type: "application/json" },
      { file_size: 1 },
      { file_name: "a.csv" }
    ]
    for (const body of refused) expect(Either.isLeft(decode(body)), JSON.stringify(body)).toBe(true)
  })
})

/** PUTs `body` to an upload URL (only its path and query: the test server listens elsewhere). */
const put = (
  uploadUrl: string,
  body: string | Stream.Stream<Uint8Array>,
  contentType = "text/csv"
) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = new URL(uploadUrl)
    const request = HttpClientRequest.put(url.pathname + url.search).pipe(
      typeof body === "string"
        ? HttpClientRequest.bodyText(body, contentType)
        : HttpClientRequest.bodyStream(body, { contentType })
    )
    const response = yield* client.execute(request)
    const text = yield* response.text
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) } as Reply
  }).pipe(Effect.scoped, Effect.orDie)

const presign = (apiKey: string, body: unknown, path = "/api/v1/storage/presigned-upload-url") =>
  call("POST", path, { apiKey, body })

const presigned = (apiKey: string, body: unknown) =>
  Effect.map(presign(apiKey, body), (reply) => {
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
    return reply.body as { upload_url: string; file_key: string; expires_in: number }
  })

const withQuery = (uploadUrl: string, change: (params: URLSearchParams) => void) => {
  const url = new URL(uploadUrl)
  change(url.searchParams)
  return url.toString()
}

const readAll = (stream: Stream.Stream<Uint8Array>) =>
  Effect.map(Stream.runCollect(stream), (chunks) => Buffer.concat(Chunk.toArray(chunks)).toString("utf8"))

/** Files the blob store is still writing (it renames each into place once complete). */
const partsIn = (dataDir: string) => {
  const dir = NodePath.join(dataDir, "blobs", ".incoming")
  return NodeFs.existsSync(dir) ? NodeFs.readdirSync(dir).map((name) => NodePath.join(dir, name)) : []
}

const incomingParts = Effect.map(ServerConfig, (config) => partsIn(config.dataDir))

const realSleep = (millis: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, millis)))

const CSV = "phone_number,first_name\n+14155550100,Ada\n+14155550101,Grace\n"

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Contacts upload [${dialect}]`, (it) => {
    it.effect("presign returns a signed URL of this server and a key of the caller's organization", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const reply = yield* presign(org.apiKey, { file_name: "my contacts (1).csv", file_size: 123 })
        expect(reply.status).toBe(200)
        expect(Object.keys(reply.body).sort()).toEqual(["expires_in", "file_key", "upload_url"])
        const { expires_in, file_key, upload_url } = reply.body
        expect(expires_in).toBe(900)
        expect(file_key).toMatch(new RegExp(`^${org.principal.organizationId}/contacts/${UUID.source}_my_contacts__1_\\.csv$`))
        const url = new URL(upload_url)
        expect(`${url.origin}${url.pathname}`).toBe(`http://127.0.0.1:0/api/v1/storage/upload/${file_key}`)
        const now = yield* Clock.currentTimeMillis
        expect(Number(url.searchParams.get("expires"))).toBe(Math.floor(now / 1000) + 900)
        expect(url.searchParams.get("signature")).toBe(
          uploadSignature(secret, file_key, Number(url.searchParams.get("expires")), 123)
        )
        const again = yield* presigned(org.apiKey, { file_name: "my contacts (1).csv", file_size: 123 })
        expect(again.file_key).not.toBe(file_key)
      }))

    it.effect("presign needs credentials", () =>
      Effect.gen(function*() {
        const reply = yield* call("POST", "/api/v1/storage/presigned-upload-url", { body: { file_name: "a.csv", file_size: 1 } })
        expect(reply.status).toBe(401)
        expect((yield* call("POST", "/api/v1/s3/presigned-upload-url", { body: { file_name: "a.csv", file_size: 1 } })).status).toBe(401)
      }))

    it.effect("a PUT stores the file; the organization can then use and read it", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const uploads = yield* Uploads
        const size = Buffer.byteLength(CSV)
        const target = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: size })

        const before = yield* Effect.either(uploads.requireUploaded(org.principal, target.file_key))
        expect(Either.isLeft(before) && before.left._tag).toBe("UploadNotFound")

        const reply = yield* put(target.upload_url, CSV, "text/csv; charset=utf-8")
        expect(reply).toEqual({ status: 200, body: { file_key: target.file_key, size } })

        const upload = yield* uploads.requireUploaded(org.principal, target.file_key)
        expect(upload).toMatchObject({
          file_key: target.file_key,
          organization_id: org.principal.organizationId,
          file_name: "contacts.csv",
          declared_size: size,
          stored_size: size
        })
        expect(upload.uploaded_at).not.toBeNull()
        expect(yield* readAll(yield* uploads.open(org.principal, target.file_key))).toBe(CSV)
      }))

    it.effect("fewer bytes than declared are accepted and the stored size is the real one", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 1000 })
        expect(yield* put(target.upload_url, CSV)).toEqual({ status: 200, body: { file_key: target.file_key, size: Buffer.byteLength(CSV) } })
        const upload = yield* (yield* Uploads).requireUploaded(org.principal, target.file_key)
        expect(upload.stored_size).toBe(Buffer.byteLength(CSV))
      }))

    it.effect("the /s3 path (the reference's) presigns the same way", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const reply = yield* presign(org.apiKey, { file_name: "contacts.csv", file_size: 64 }, "/api/v1/s3/presigned-upload-url")
        expect(reply.status).toBe(200)
        expect(reply.body.file_key).toMatch(new RegExp(`^${org.principal.organizationId}/contacts/`))
        expect((yield* put(reply.body.upload_url, CSV)).status).toBe(200)
        expect((yield* (yield* Uploads).requireUploaded(org.principal, reply.body.file_key)).stored_size).toBe(Buffer.byteLength(CSV))
      }))

    it.effect("a wrong, missing or altered signature is 403 and stores nothing", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const blobs = yield* BlobStore
        const target = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 100 })
        const detail = "Upload URL signature is invalid or expired; request a new one with POST /api/v1/storage/presigned-upload-url"
        const signature = new URL(target.upload_url).searchParams.get("signature")!
        const variants = [
          withQuery(target.upload_url, (q) => q.set("signature", `${signature.slice(0, -2)}AA`)),
          withQuery(target.upload_url, (q) => q.set("signature", "")),
          withQuery(target.upload_url, (q) => q.delete("signature")),
          withQuery(target.upload_url, (q) => q.delete("expires")),
          withQuery(target.upload_url, (q) => q.set("expires", String(Number(q.get("expires")) + 3600))),
          // the same signature on another key of the organization
          target.upload_url.replace(/contacts\/[^?]+/, "contacts/other.csv"),
          // and on the same file name under another organization
          target.upload_url.replace(`/upload/${org.principal.organizationId}/`, `/upload/${org.principal.organizationId + 1000}/`)
        ]
        for (const url of variants) {
          expect(yield* put(url, CSV), url).toEqual({ status: 403, body: { detail } })
        }
        expect(Either.isLeft(yield* Effect.either(blobs.head(target.file_key)))).toBe(true)
        expect(Either.isLeft(yield* Effect.either((yield* Uploads).requireUploaded(org.principal, target.file_key)))).toBe(true)
        expect((yield* put(target.upload_url, CSV)).status).toBe(200)
      }))

    it.effect("an expired URL is 403", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 100 })
        yield* TestClock.adjust("901 seconds")
        const reply = yield* put(target.upload_url, CSV)
        expect(reply.status).toBe(403)
        expect(reply.body.detail).toMatch(/^Upload URL signature is invalid or expired; request a new one/)

        // Signed directly with the server's secret: the same key passes with a future expiry, not with a past one.
        const nowSeconds = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        const signed = (expires: number) =>
          withQuery(target.upload_url, (q) => {
            q.set("expires", String(expires))
            q.set("signature", uploadSignature(secret, target.file_key, expires, 100))
          })
        expect((yield* put(signed(nowSeconds - 1), CSV)).status).toBe(403)
        expect((yield* put(signed(nowSeconds), CSV)).status).toBe(403)
        expect((yield* put(signed(nowSeconds + 60), CSV)).status).toBe(200)
      }))

    it.effect("a body that is not declared as CSV is 400", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const target = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 100 })
        const reply = yield* put(target.upload_url, CSV, "application/json")
        expect(reply.status).toBe(400)
        expect(reply.body.detail).toBe("Send the file with the header Content-Type: text/csv (got 'application/json')")
        expect((yield* put(target.upload_url, CSV, "text/plain")).status).toBe(400)
        expect(Either.isLeft(yield* Effect.either((yield* BlobStore).head(target.file_key)))).toBe(true)

        const plain = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 100, content_type: "text/plain" })
        expect((yield* put(plain.upload_url, CSV, "text/plain")).status).toBe(200)
      }))

    it.effect("more bytes than file_size is 413 and nothing is stored", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const uploads = yield* Uploads
        const target = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 10 })
        const reply = yield* put(target.upload_url, CSV)
        expect(reply.status).toBe(413)
        expect(reply.body.detail).toMatch(/declared for this upload URL \(10 bytes\); nothing was stored/)
        expect(Either.isLeft(yield* Effect.either((yield* BlobStore).head(target.file_key)))).toBe(true)
        expect(yield* incomingParts).toEqual([])
        const refused = yield* Effect.either(uploads.requireUploaded(org.principal, target.file_key))
        expect(Either.isLeft(refused) && refused.left._tag).toBe("UploadNotFound")

        // A streamed body is cut off the same way.
        const streamed = yield* presigned(org.apiKey, { file_name: "contacts.csv", file_size: 5 * 1024 })
        const chunk = new Uint8Array(1024).fill(65)
        expect((yield* put(streamed.upload_url, Stream.make(chunk, chunk, chunk, chunk, chunk, chunk))).status).toBe(413)
        expect(Either.isLeft(yield* Effect.either((yield* BlobStore).head(streamed.file_key)))).toBe(true)
        expect(yield* incomingParts).toEqual([])
      }))

    it.effect("file_size above the server maximum is 413 at presign, naming the limit", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const reply = yield* presign(org.apiKey, { file_name: "contacts.csv", file_size: 100 * MiB + 1 })
        expect(reply.status).toBe(413)
        expect(reply.body.detail).toMatch(/exceeds the maximum upload size of 104857600 bytes/)
        expect((yield* presign(org.apiKey, { file_name: "contacts.csv", file_size: 100 * MiB })).status).toBe(200)
      }))

    it.effect("a file name without .csv, or a size that is not positive, is 422", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const reply = yield* presign(org.apiKey, { file_name: "contacts.xlsx", file_size: 10 })
        expect(reply.status).toBe(422)
        expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ["body", "file_name"] })])
        const size = yield* presign(org.apiKey, { file_name: "contacts.csv", file_size: 0 })
        expect(size.status).toBe(422)
        expect(size.body.detail).toEqual([expect.objectContaining({ loc: ["body", "file_size"] })])
        const type = yield* presign(org.apiKey, { file_name: "contacts.csv", file_size: 10, content_type: "application/json" })
        expect(type.status).toBe(422)
      }))

    it.effect("another organization's file is refused to requireUploaded and open", () =>
      Effect.gen(function*() {
        const owner = yield* seedOrganization()
        const other = yield* seedOrganization()
        const uploads = yield* Uploads
        const target = yield* presigned(owner.apiKey, { file_name: "contacts.csv", file_size: 100 })
        expect((yield* put(target.upload_url, CSV)).status).toBe(200)
        const refused = yield* Effect.either(uploads.requireUploaded(other.principal, target.file_key))
        expect(refused).toEqual(Either.left(expect.objectContaining({ _tag: "UploadNotFound", fileKey: target.file_key })))
        const opened = yield* Effect.either(uploads.open(other.principal, target.file_key))
        expect(Either.isLeft(opened) && opened.left._tag).toBe("UploadNotFound")
        expect(Either.isLeft(yield* Effect.either(uploads.requireUploaded(owner.principal, "no/such/key")))).toBe(true)
        expect((yield* uploads.requireUploaded(owner.principal, target.file_key)).organization_id).toBe(owner.principal.organizationId)
      }))

    it.effect("a 20 MiB body is streamed to disk while it arrives", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const uploads = yield* Uploads
        const size = 20 * MiB
        const target = yield* presigned(org.apiKey, { file_name: "big.csv", file_size: size })
        const line = "+14155550100,Someone\n"
        const chunk = new TextEncoder().encode(line.repeat(Math.floor(MiB / line.length)).padEnd(MiB, "#"))
        const half = Stream.repeatValue(chunk).pipe(Stream.take(10))
        // The second half is only sent once the first has reached the disk: a server that buffered the
        // whole body before writing would never get there.
        const { dataDir } = yield* ServerConfig
        const reachedDisk = Effect.gen(function*() {
          for (let attempt = 0; attempt < 2000; attempt++) {
            const parts = partsIn(dataDir)
            if (parts.some((part) => NodeFs.existsSync(part) && NodeFs.statSync(part).size > 0)) return
            yield* realSleep(10)
          }
          return yield* Effect.dieMessage("the upload never reached the disk while its body was still arriving")
        })
        const body = Stream.concat(half, Stream.fromEffect(reachedDisk).pipe(Stream.drain, Stream.concat(half)))
        const reply = yield* put(target.upload_url, body)
        expect(reply).toEqual({ status: 200, body: { file_key: target.file_key, size } })
        expect((yield* (yield* BlobStore).head(target.file_key)).size).toBe(size)
        expect((yield* uploads.requireUploaded(org.principal, target.file_key)).stored_size).toBe(size)
        const stored = yield* Stream.runFold(yield* uploads.open(org.principal, target.file_key), 0, (n, bytes) => n + bytes.length)
        expect(stored).toBe(size)
        expect(yield* incomingParts).toEqual([])
      }))

    it.effect("the OpenAPI document lists both presign paths and the upload PUT", () =>
      Effect.gen(function*() {
        const { body } = yield* call("GET", "/api/v1/openapi.json")
        expect(Object.keys(body.paths)).toEqual(expect.arrayContaining([
          "/api/v1/storage/presigned-upload-url",
          "/api/v1/s3/presigned-upload-url",
          "/api/v1/storage/upload/{organization}/contacts/{file}"
        ]))
        expect(Object.keys(body.paths["/api/v1/storage/upload/{organization}/contacts/{file}"].put.requestBody.content)).toEqual(["text/csv"])
      }))
  })
}
