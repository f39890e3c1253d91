/**
 * Contacts upload in two steps, like a cloud bucket's presigned PUT: `presign` reserves an
 * organization-scoped key and returns a signed, expiring URL of this server; a `PUT` of the raw CSV to
 * that URL streams it into the BlobStore (never whole in memory), refusing more bytes than declared or
 * than the server allows. The URL's signature is its credential (no API key on the PUT), and it works
 * once: a second PUT never replaces the stored file.
 */
import { Clock, Context, Effect, Layer, Option, type Redacted, Stream } from "effect"
import * as Crypto from "node:crypto"
import { BlobStore } from "../blobs/BlobStore.js"
import type { Principal } from "@agentline/api/Authentication"
import { PublicUrls } from "../PublicUrls.js"
import { acceptsContentType, contactsKey, kindOfKey, mediaType, organizationOfKey, recordingKey, uploadSignature, verifyUploadSignature } from "./Upload.js"
import { type PresignRequest, type PresignResponse, type UploadReceipt } from "@agentline/api/uploads/Upload"
import {
  UploadBodyTooLarge,
  UploadContentTypeRefused,
  UploadNoLongerStored,
  UploadNotFound,
  UploadTooLarge,
  UploadUrlInvalid,
  UploadUrlUsed
} from "./Errors.js"
import { type StoredUpload, UploadsRepo } from "./UploadsRepo.js"
import { iso } from "../Time.js"

export interface UploadSettingsShape {
  readonly secret: Redacted.Redacted<string>
  /** Lifetime of an upload URL, seconds (`AGENTLINE_UPLOAD_URL_TTL_SECONDS`, default 900). */
  readonly ttlSeconds: number
  /** Largest accepted file, bytes (`AGENTLINE_MAX_UPLOAD_BYTES`, default 100 MiB). */
  readonly maxBytes: number
}

export class UploadSettings extends Context.Tag("@agentline/core/UploadSettings")<UploadSettings, UploadSettingsShape>() {
  static layer = (settings: UploadSettingsShape) => Layer.succeed(UploadSettings, settings)
}

export class Uploads extends Effect.Service<Uploads>()("@agentline/core/Uploads", {
  effect: Effect.gen(function*() {
    const repo = yield* UploadsRepo
    const blobs = yield* BlobStore
    const settings = yield* UploadSettings
    const urls = yield* PublicUrls

    const presign = Effect.fn("Uploads.presign")(function*(principal: Principal, request: PresignRequest) {
      if (request.file_size > settings.maxBytes) {
        return yield* new UploadTooLarge({ fileSize: request.file_size, maxBytes: settings.maxBytes })
      }
      const now = yield* Clock.currentTimeMillis
      const expires = Math.floor(now / 1000) + settings.ttlSeconds
      const key = contactsKey(principal.organizationId, Crypto.randomUUID(), request.file_name)
      yield* repo.reserve({
        file_key: key,
        organization_id: principal.organizationId,
        file_name: request.file_name,
        declared_size: request.file_size,
        content_type: request.content_type,
        expires_at: iso(expires * 1000),
        now: iso(now)
      })
      const query = new URLSearchParams({
        expires: String(expires),
        signature: uploadSignature(settings.secret, key, expires, request.file_size)
      })
      return {
        upload_url: urls.contactsUpload({ key, query }),
        file_key: key,
        expires_in: settings.ttlSeconds
      } satisfies PresignResponse
    })

    /**
     * Upload URLs for an agent's recordings (`/workflow-recordings/upload-url`): each file gets its key
     * under `<organization>/recordings/`, named by its new recording id. Same signed, single-use URLs as
     * contacts; the PUT must send the declared audio type.
     */
    const presignRecording = Effect.fn("Uploads.presignRecording")(function*(
      principal: Principal,
      request: { readonly recordingId: string; readonly fileName: string; readonly fileSize: number; readonly contentType: string }
    ) {
      if (request.fileSize > settings.maxBytes) {
        return yield* new UploadTooLarge({ fileSize: request.fileSize, maxBytes: settings.maxBytes })
      }
      const now = yield* Clock.currentTimeMillis
      const expires = Math.floor(now / 1000) + settings.ttlSeconds
      const key = recordingKey(principal.organizationId, request.recordingId, request.fileName)
      yield* repo.reserve({
        file_key: key,
        organization_id: principal.organizationId,
        file_name: request.fileName,
        declared_size: request.fileSize,
        content_type: request.contentType,
        expires_at: iso(expires * 1000),
        now: iso(now)
      })
      const query = new URLSearchParams({
        expires: String(expires),
        signature: uploadSignature(settings.secret, key, expires, request.fileSize)
      })
      return { upload_url: urls.recordingUpload({ key, query }), file_key: key, expires_in: settings.ttlSeconds }
    })

    /**
     * The bytes of an uploaded file of the organization, whole (for small files: recordings, bounded by
     * their signed size when they were stored); none when it was not uploaded or is no longer stored.
     */
    const readUploaded = Effect.fn("Uploads.readUploaded")(function*(organizationId: number, fileKey: string) {
      const upload = yield* repo.find(organizationId, fileKey)
      if (Option.isNone(upload) || upload.value.uploaded_at === null) return Option.none<Uint8Array>()
      const stream = yield* Effect.option(blobs.stream(fileKey))
      if (Option.isNone(stream)) return Option.none<Uint8Array>()
      const chunks = yield* Stream.runCollect(stream.value)
      const bytes = new Uint8Array([...chunks].reduce((n, c) => n + c.length, 0))
      let offset = 0
      for (const chunk of chunks) {
        bytes.set(chunk, offset)
        offset += chunk.length
      }
      return Option.some(bytes)
    })

    /**
     * The PUT to an upload URL. Every way a URL can be wrong (unknown key, bad or missing signature,
     * expired) gets the same 403, so the answer tells nothing about which keys exist.
     */
    const receive = Effect.fn("Uploads.receive")(function*<E>(
      key: string,
      expires: string,
      signature: string,
      contentType: string | undefined,
      body: Stream.Stream<Uint8Array, E>,
      /** The body's announced length (`Content-Length`), when known: checked before any byte is read. */
      contentLength?: number
    ) {
      const refused = new UploadUrlInvalid()
      const upload = yield* Option.match(organizationOfKey(key), {
        onNone: () => Effect.succeed(Option.none<StoredUpload>()),
        onSome: (organizationId) => repo.find(organizationId, key)
      })
      if (Option.isNone(upload)) return yield* refused
      const now = yield* Clock.currentTimeMillis
      if (!verifyUploadSignature(settings.secret, key, expires, signature, upload.value.declared_size, now)) {
        return yield* refused
      }
      const kind = kindOfKey(key)
      if (!acceptsContentType(contentType, upload.value.content_type, kind)) {
        return yield* new UploadContentTypeRefused({
          contentType: contentType ?? null,
          expected: kind === "contacts" ? "text/csv" : mediaType(upload.value.content_type)
        })
      }
      // The declared size is signed into the URL, so it bounds the body; the server maximum too, in case
      // it was lowered after the URL was issued.
      const limit = Math.min(upload.value.declared_size, settings.maxBytes)
      const tooLarge = new UploadBodyTooLarge({ limit, declared: limit === upload.value.declared_size })
      // An announced length over the limit is refused before reading; a body without one is cut at the limit.
      if (contentLength !== undefined && contentLength > limit) return yield* tooLarge
      // One PUT per URL: claimed before any byte is stored, so a second one (even a concurrent one) can
      // never replace the file. A PUT that stores nothing gives the claim back and the URL can be retried.
      if (!(yield* repo.claim(key, iso(now)))) {
        return yield* new UploadUrlUsed({ fileKey: key })
      }
      const stored = yield* blobs.put(key, body, { maxBytes: limit, contentType: kind === "contacts" ? "text/csv" : mediaType(upload.value.content_type) }).pipe(
        Effect.onError(() => repo.abandon(key)),
        Effect.catchTag("BlobTooLarge", () => Effect.fail(tooLarge))
      )
      yield* repo.markUploaded(key, stored.size, iso(yield* Clock.currentTimeMillis))
      return { file_key: key, size: stored.size } satisfies UploadReceipt
    })

    /** The upload behind a campaign's `source_id`: it must be the caller organization's, and uploaded. */
    const requireUploaded = Effect.fn("Uploads.requireUploaded")(function*(principal: Pick<Principal, "organizationId">, fileKey: string) {
      const upload = yield* repo.find(principal.organizationId, fileKey)
      // A recording's upload is not a contacts file.
      if (Option.isNone(upload) || upload.value.uploaded_at === null || kindOfKey(fileKey) !== "contacts") {
        return yield* new UploadNotFound({ fileKey })
      }
      return upload.value
    })

    /** The uploaded file's bytes, streamed from the BlobStore. */
    const open = Effect.fn("Uploads.open")(function*(principal: Pick<Principal, "organizationId">, fileKey: string) {
      yield* requireUploaded(principal, fileKey)
      return yield* blobs.stream(fileKey).pipe(
        Effect.catchTag("BlobNotFound", () =>
          Effect.fail(new UploadNoLongerStored({ fileKey })))
      )
    })

    /** The uploaded contacts file (its record, for the name it was uploaded with) and its bytes, streamed. */
    const download = Effect.fn("Uploads.download")(function*(organizationId: number, fileKey: string) {
      const upload = yield* requireUploaded({ organizationId }, fileKey)
      const content = yield* blobs.stream(fileKey).pipe(
        Effect.catchTag("BlobNotFound", () => Effect.fail(new UploadNoLongerStored({ fileKey })))
      )
      return { upload, content }
    })

    /** Both upload steps at once, for a file already in hand (command line, demo, tests): same checks. */
    const store = Effect.fn("Uploads.store")(function*(principal: Principal, fileName: string, bytes: Uint8Array) {
      const presigned = yield* presign(principal, { file_name: fileName, file_size: bytes.length, content_type: "text/csv" })
      const url = new URL(presigned.upload_url)
      yield* receive(
        presigned.file_key,
        url.searchParams.get("expires") ?? "",
        url.searchParams.get("signature") ?? "",
        "text/csv",
        Stream.make(bytes)
      )
      return presigned.file_key
    })

    return { presign, presignRecording, receive, store, requireUploaded, open, download, readUploaded } as const
  })
}) {}
