/**
 * `BlobStore` on the local file system: one file per key under a root directory.
 *
 * Writes stream to a temporary file and are renamed into place only when complete and within the
 * size limit, so a crash, a failed upload or an oversized one never leaves a partial blob behind.
 * Memory use is one chunk at a time, whatever the file size.
 */
import { BlobNotFound, BlobStore, BlobTooLarge } from "@agentline/core/blobs/BlobStore"
import { Error as PlatformError, FileSystem } from "@effect/platform"
import { NodeFileSystem } from "@effect/platform-node"
import { Config, Effect, Layer, Ref, Stream } from "effect"
import * as NodePath from "node:path"
import * as NodeCrypto from "node:crypto"

const SAFE_KEY = /^[A-Za-z0-9][A-Za-z0-9._\-/]*$/

/** Keys are relative paths of safe characters; anything that could escape the root is refused. */
const resolveKey = (root: string, key: string): string => {
  if (!SAFE_KEY.test(key) || key.split("/").some((part) => part === ".." || part === "." || part === "")) {
    throw new Error(`Invalid blob key '${key}'`)
  }
  return NodePath.join(root, key)
}

export const make = (options: { readonly root: string }) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const root = NodePath.resolve(options.root)
    yield* fs.makeDirectory(NodePath.join(root, ".incoming"), { recursive: true }).pipe(Effect.orDie)

    const pathOf = (key: string) => Effect.try({ try: () => resolveKey(root, key), catch: () => new BlobNotFound({ key }) })

    return BlobStore.of({
      put: <E>(key: string, content: Stream.Stream<Uint8Array, E>, opts: { readonly maxBytes: number }) =>
        Effect.gen(function*() {
          const target = resolveKey(root, key)
          const temp = NodePath.join(root, ".incoming", `${NodeCrypto.randomUUID()}.part`)
          const size = yield* Ref.make(0)
          const counted = content.pipe(
            // An empty chunk is nothing to write (the file sink fails on a write of 0 bytes: WriteZero),
            // and an empty blob is a valid one (a call's silent track).
            Stream.filter((chunk) => chunk.length > 0),
            Stream.mapEffect((chunk) =>
              Ref.updateAndGet(size, (n) => n + chunk.length).pipe(
                Effect.flatMap((n) => n > opts.maxBytes ? Effect.fail(new BlobTooLarge({ key, limit: opts.maxBytes })) : Effect.succeed(chunk))
              )
            )
          )
          const written = yield* Stream.run(counted, fs.sink(temp)).pipe(
            Effect.zipRight(Ref.get(size)),
            Effect.onError(() => fs.remove(temp).pipe(Effect.ignore))
          )
          yield* fs.makeDirectory(NodePath.dirname(target), { recursive: true }).pipe(Effect.orDie)
          yield* fs.rename(temp, target).pipe(Effect.orDie)
          return { key, size: written }
        }).pipe(
          // The file system failing is a defect here, not an answer to the caller.
          Effect.catchIf(PlatformError.isPlatformError, (e) => Effect.die(e))
        ),
      stream: (key, range) =>
        Effect.gen(function*() {
          const path = yield* pathOf(key)
          const exists = yield* fs.exists(path).pipe(Effect.orDie)
          if (!exists) return yield* new BlobNotFound({ key })
          return fs.stream(path, range === undefined ? {} : { offset: range.offset, bytesToRead: range.length }).pipe(Stream.orDie)
        }),
      head: (key) =>
        Effect.gen(function*() {
          const path = yield* pathOf(key)
          const info = yield* fs.stat(path).pipe(Effect.mapError(() => new BlobNotFound({ key })))
          return { key, size: Number(info.size) }
        }),
      remove: (key) =>
        Effect.suspend(() => fs.remove(resolveKey(root, key))).pipe(Effect.catchAll(() => Effect.void), Effect.catchAllDefect(() => Effect.void))
    })
  })

/** The store under `root`. */
export const layer = (options: { readonly root: string }): Layer.Layer<BlobStore> =>
  Layer.effect(BlobStore, make(options)).pipe(Layer.provide(NodeFileSystem.layer))

/** The store under `$AGENTLINE_DATA_DIR/blobs` (default `./data/blobs`). */
export const layerConfig: Layer.Layer<BlobStore, unknown> = Layer.unwrapEffect(
  Effect.map(Config.string("AGENTLINE_DATA_DIR").pipe(Config.withDefault("./data")), (dir) =>
    layer({ root: NodePath.join(dir, "blobs") }))
)
