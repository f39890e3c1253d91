/**
 * Contacts upload in two steps, like a cloud bucket's presigned PUT: `presign` reserves an
 * organization-scoped key and returns a signed, expiring URL of this server; a `PUT` of the raw CSV to
 * that URL streams it into the BlobStore (never whole in memory), refusing more bytes than declared or
 * than the server allows. The URL's signature is its credential (no API key on the PUT).
 */
import { Clock, Context, Effect, Layer, Option, Redacted, type Stream } from "effect"
import * as Crypto from "node:crypto"
import { BlobStore } from "../blobs/BlobStore.js"
import { BadRequest, Forbidden, PayloadTooLarge } from "../Errors.js"
import type { Principal } from "../organizations/Principal.js"
import type { PresignRequest } from "./Upload.js"
import { UploadsRepo } from "./UploadsRepo.js"

export interface UploadSettingsShape {
  readonly baseUrl: string
  readonly secret: Redacted.Redacted<string>
  /** Lifetime of an upload URL, seconds (`AGENTLINE_UPLOAD_URL_TTL_SECONDS`, default 900). */
  readonly ttlSeconds: number
  /** Largest accepted file, bytes (`AGENTLINE_MAX_UPLOAD_BYTES`, default 100 MiB). */
  readonly maxBytes: number
}

export class UploadSettings extends Context.Tag("@agentline/core/UploadSettings")<UploadSettings, UploadSettingsShape>() {
  static layer = (settings: UploadSettingsShape) => Layer.succeed(UploadSettings, settings)
}

const sanitize = (name: string) => name.replace(/[^A-Za-z0-9._-]/g, "_").slice(-100)

const iso = (millis: number) => new Date(millis).toISOString()

export class Uploads extends Effect.Service<Uploads>()("@agentline/core/Uploads", {
  effect: Effect.gen(function*() {
    const repo = yield* UploadsRepo
    const blobs = yield* BlobStore
    const settings = yield* UploadSettings

    const sign = (key: string, expires: number, size: number) =>
      Crypto.createHmac("sha256", `upload:${Redacted.value(settings.secret)}`).update(`${key}\n${expires}\n${size}`).digest("base64url")

    const presign = Effect.fn("Uploads.presign")(function*(principal: Principal, request: PresignRequest) {
      if (request.file_size > settings.maxBytes) {
        return yield* new PayloadTooLarge({
          detail: `file_size ${request.file_size} exceeds the maximum upload size of ${settings.maxBytes} bytes`
        })
      }
      const now = yield* Clock.currentTimeMillis
      const expires = Math.floor(now / 1000) + settings.ttlSeconds
      const key = `${principal.organizationId}/contacts/${Crypto.randomUUID()}_${sanitize(request.file_name)}`
      yield* repo.reserve({
        file_key: key,
        organization_id: principal.organizationId,
        file_name: request.file_name,
        declared_size: request.file_size,
        content_type: request.content_type,
        expires_at: iso(expires * 1000),
        now: iso(now)
      })
      const query = new URLSearchParams({ expires: String(expires), signature: sign(key, expires, request.file_size) })
      return {
        upload_url: `${settings.baseUrl}/api/v1/storage/upload/${key}?${query}`,
        file_key: key,
        expires_in: settings.ttlSeconds
      }
    })

    const receive = Effect.fn("Uploads.receive")(function*<E>(
      key: string,
      expires: string,
      signature: string,
      contentType: string | undefined,
      body: Stream.Stream<Uint8Array, E>
    ) {
      const refused = new Forbidden({ detail: "Upload URL signature is invalid or expired; request a new one with POST /api/v1/storage/presigned-upload-url" })
      const upload = yield* repo.find(key)
      if (Option.isNone(upload) || !/^\d+$/.test(expires)) return yield* refused
      const expected = Buffer.from(sign(key, Number(expires), upload.value.declared_size))
      const given = Buffer.from(signature)
      if (expected.length !== given.length || !Crypto.timingSafeEqual(expected, given)) return yield* refused
      if (Number(expires) * 1000 <= (yield* Clock.currentTimeMillis)) return yield* refused
      const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase()
      if (type !== "text/csv" && type !== "application/vnd.ms-excel" && type !== "text/plain") {
        return yield* new BadRequest({ detail: `Send the file with Content-Type: text/csv (got '${contentType ?? "none"}')` })
      }
      const limit = Math.min(upload.value.declared_size, settings.maxBytes)
      const stored = yield* blobs.put(key, body, { maxBytes: limit, contentType: "text/csv" }).pipe(
        Effect.catchTag("BlobTooLarge", () =>
          Effect.fail(new PayloadTooLarge({ detail: `The file is larger than the declared file_size (${limit} bytes); nothing was stored` })))
      )
      yield* repo.markUploaded(key, stored.size, iso(yield* Clock.currentTimeMillis))
      return { file_key: key, size: stored.size }
    })

    /** The upload behind `source_id`: it must be the caller organization's, and uploaded. */
    const requireUploaded = Effect.fn("Uploads.requireUploaded")(function*(principal: Principal, fileKey: string) {
      const upload = yield* repo.find(fileKey)
      if (Option.isNone(upload) || upload.value.organization_id !== principal.organizationId || upload.value.uploaded_at === null) {
        return yield* new BadRequest({
          detail: `source_id '${fileKey}' is not an uploaded file of this organization; upload it first with POST /api/v1/storage/presigned-upload-url`
        })
      }
      return upload.value
    })

    const open = Effect.fn("Uploads.open")(function*(principal: Principal, fileKey: string) {
      yield* requireUploaded(principal, fileKey)
      return yield* blobs.stream(fileKey).pipe(
        Effect.catchTag("BlobNotFound", () => Effect.fail(new BadRequest({ detail: `The file '${fileKey}' is no longer stored; upload it again` })))
      )
    })

    return { presign, receive, requireUploaded, open } as const
  })
}) {}
