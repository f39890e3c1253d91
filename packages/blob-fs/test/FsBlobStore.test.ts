import { BlobStore } from "@agentline/core/blobs/BlobStore"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Exit, Stream } from "effect"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { FsBlobStore } from "../src/index.js"

const withStore = <A, E>(f: (store: BlobStore["Type"], root: string) => Effect.Effect<A, E>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-blobs-"))),
    (root) => Effect.flatMap(BlobStore, (store) => f(store, root)).pipe(Effect.provide(FsBlobStore.layer({ root }))),
    (root) => Effect.sync(() => NodeFs.rmSync(root, { recursive: true, force: true }))
  )

const bytes = (s: string) => new TextEncoder().encode(s)
const text = (stream: Stream.Stream<Uint8Array>) =>
  Stream.runCollect(stream).pipe(Effect.map((chunks) => Buffer.concat(Chunk.toArray(chunks)).toString("utf8")))

describe("FsBlobStore", () => {
  it.effect("stores a stream and reads it back", () =>
    withStore((store) =>
      Effect.gen(function*() {
        const info = yield* store.put("1/contacts/a.csv", Stream.make(bytes("phone_number\n"), bytes("+14155550100\n")), { maxBytes: 1000 })
        expect(info.size).toBe(26)
        expect((yield* store.head("1/contacts/a.csv")).size).toBe(26)
        expect(yield* text(yield* store.stream("1/contacts/a.csv"))).toBe("phone_number\n+14155550100\n")
      })))

  it.effect("stores an empty blob (a silent track), from no chunk or from empty ones", () =>
    withStore((store) =>
      Effect.gen(function*() {
        expect((yield* store.put("1/runs/1/bot.wav", Stream.make(new Uint8Array(0)), { maxBytes: 10 })).size).toBe(0)
        expect((yield* store.put("1/runs/1/user.wav", Stream.empty, { maxBytes: 10 })).size).toBe(0)
        expect((yield* store.head("1/runs/1/bot.wav")).size).toBe(0)
        expect(yield* text(yield* store.stream("1/runs/1/user.wav"))).toBe("")
      })))

  it.effect("reads a byte range: length bytes from offset, across the file's read chunks", () =>
    withStore((store) =>
      Effect.gen(function*() {
        // Larger than one read chunk (64 KiB), so a range spans two.
        const content = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251))
        yield* store.put("1/runs/2/recording.wav", Stream.make(new Uint8Array(content)), { maxBytes: 100_000 })
        const read = (offset: number, length: number) =>
          Effect.flatMap(store.stream("1/runs/2/recording.wav", { offset, length }), Stream.runCollect).pipe(
            Effect.map((chunks) => Buffer.concat(Chunk.toArray(chunks)))
          )
        expect((yield* read(0, 10)).equals(content.subarray(0, 10))).toBe(true)
        expect((yield* read(65_530, 20)).equals(content.subarray(65_530, 65_550))).toBe(true)
        expect((yield* read(69_999, 1)).equals(content.subarray(69_999))).toBe(true)
      })))

  it.effect("refuses more bytes than allowed and leaves nothing behind", () =>
    withStore((store, root) =>
      Effect.gen(function*() {
        const exit = yield* Effect.exit(store.put("1/big.csv", Stream.make(bytes("0123456789"), bytes("0123456789")), { maxBytes: 15 }))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(JSON.stringify(exit)).toContain("BlobTooLarge")
        expect(yield* Effect.exit(store.head("1/big.csv"))).toMatchObject({ _tag: "Failure" })
        expect(NodeFs.readdirSync(NodePath.join(root, ".incoming"))).toEqual([])
      })))

  it.effect("missing keys and keys that try to escape the root are not found", () =>
    withStore((store) =>
      Effect.gen(function*() {
        expect((yield* Effect.flip(store.stream("1/none.csv")))._tag).toBe("BlobNotFound")
        expect((yield* Effect.flip(store.stream("../etc/passwd")))._tag).toBe("BlobNotFound")
        yield* store.remove("1/none.csv")
      })))
})
