/**
 * The blob port: where uploaded contact files and call artifacts (recordings, transcripts) live.
 * Keys are opaque strings chosen by the caller and always start with `<organization id>/`, so a key
 * says whose it is. `@agentline/blob-fs` implements it on the local file system; an S3 adapter would
 * implement the same five operations.
 */
import { Context, Data, type Effect, type Stream } from "effect"

export class BlobNotFound extends Data.TaggedError("BlobNotFound")<{ readonly key: string }> {}

export class BlobTooLarge extends Data.TaggedError("BlobTooLarge")<{ readonly key: string; readonly limit: number }> {}

/** Part of a blob: `length` bytes from `offset` (both in bytes, within the blob). */
export interface ByteRange {
  readonly offset: number
  readonly length: number
}

export interface BlobInfo {
  readonly key: string
  readonly size: number
}

export class BlobStore extends Context.Tag("@agentline/core/BlobStore")<
  BlobStore,
  {
    /**
     * Stores the stream under `key`, replacing what was there only once the whole stream arrived
     * (a failed or oversized upload leaves nothing behind). Fails with `BlobTooLarge` past `maxBytes`.
     */
    readonly put: <E>(
      key: string,
      content: Stream.Stream<Uint8Array, E>,
      options: { readonly maxBytes: number; readonly contentType?: string }
    ) => Effect.Effect<BlobInfo, E | BlobTooLarge>
    /** The blob's bytes; with `range`, only `length` bytes from `offset` (a download's byte range). */
    readonly stream: (key: string, range?: ByteRange) => Effect.Effect<Stream.Stream<Uint8Array>, BlobNotFound>
    readonly head: (key: string) => Effect.Effect<BlobInfo, BlobNotFound>
    readonly remove: (key: string) => Effect.Effect<void>
  }
>() {}
