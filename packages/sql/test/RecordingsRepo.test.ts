/**
 * The recordings repository on both dialects: rows read back exactly (metadata JSON, booleans,
 * nulls), batches insert all or none, names are unique among an organization's active recordings
 * only, filters and organization scoping.
 */
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { RecordingsRepo, type StoredRecording } from "@agentline/core/recordings/RecordingsRepo"
import { UsersRepo } from "@agentline/core/users/UsersRepo"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { Repositories, Testing } from "../src/index.js"

const t0 = "2026-03-01T10:00:00.000Z"
const t1 = "2026-03-01T10:05:30.250Z"

const seed = Effect.gen(function*() {
  const organization = yield* (yield* OrganizationsRepo).findOrCreate(`org-${Math.random().toString(36).slice(2)}`, t0)
  const user = Option.getOrThrow(yield* (yield* UsersRepo).insert({
    organization_id: organization.id,
    email: `${Math.random().toString(36).slice(2)}@example.com`,
    password_hash: "hash",
    role: "admin",
    must_change_password: false,
    now: t0
  }))
  return { org: organization.id, user: user.id }
})

const row = (org: number, user: number, name: string, extra: Partial<StoredRecording> = {}): Omit<StoredRecording, "id" | "is_active"> => ({
  recording_id: name,
  organization_id: org,
  workflow_id: null,
  tts_provider: null,
  tts_model: null,
  tts_voice_id: null,
  transcript: `${name} says hello`,
  storage_key: `${org}/recordings/${name}_${Math.random().toString(36).slice(2)}.wav`,
  storage_backend: "blob_store",
  metadata: { sample_rate: 8000, duration: 1.25, nested: { b: [1, null, true], a: "ü" } },
  created_by: user,
  created_at: t0,
  ...extra
})

for (const dialect of Testing.dialects) {
  layer(Repositories.layer.pipe(Layer.provideMerge(Testing.layerDatabase(dialect))), { timeout: "60 seconds" })(
    `RecordingsRepo [${dialect}]`,
    (it) => {
      it.effect("round trip, all-or-none batches, unique active names, filters, rename, deactivate, organization scoping", () =>
        Effect.gen(function*() {
          const repo = yield* RecordingsRepo
          const { org, user } = yield* seed
          const other = yield* seed
          const hello = row(org, user, "hello", { tts_provider: "elevenlabs", tts_model: "m1", tts_voice_id: "v1" })
          const inserted = Option.getOrThrow(yield* repo.insertAll([hello, row(org, user, "bye", { created_at: t1 })]))
          expect(inserted[0]).toEqual({ ...hello, id: inserted[0]!.id, is_active: true })
          expect(Option.getOrThrow(yield* repo.findById(org, inserted[0]!.id))).toEqual(inserted[0])
          // A batch with a taken name inserts nothing.
          expect(yield* repo.insertAll([row(org, user, "fresh"), row(org, user, "hello")])).toEqual(Option.none())
          expect((yield* repo.findActive(org, ["fresh"])).length).toBe(0)
          // The same name in another organization is its own.
          expect(Option.isSome(yield* repo.insertAll([row(other.org, other.user, "hello")]))).toBe(true)
          expect(yield* repo.storageKeyUsed(hello.storage_key)).toBe(true)
          expect(yield* repo.storageKeyUsed("nope")).toBe(false)

          expect((yield* repo.list(org, {})).map((r) => r.recording_id)).toEqual(["bye", "hello"])
          expect((yield* repo.list(org, { tts_provider: "elevenlabs", tts_voice_id: "v1" })).map((r) => r.recording_id)).toEqual(["hello"])
          expect((yield* repo.list(org, { tts_model: "m2" })).length).toBe(0)
          expect((yield* repo.list(org, { workflow_id: 1 })).length).toBe(0)
          expect((yield* repo.findActive(org, ["hello", "bye", "missing"])).length).toBe(2)
          expect((yield* repo.findActive(other.org, ["bye"])).length).toBe(0)

          expect(yield* repo.update(org, inserted[1]!.id, { recording_id: "hello" })).toEqual(Option.some("taken"))
          const renamed = Option.getOrThrow(yield* repo.update(org, inserted[1]!.id, { recording_id: "farewell", tts_model: null, transcript: "Bye now" }))
          expect(renamed).toMatchObject({ recording_id: "farewell", transcript: "Bye now", tts_model: null })
          expect(yield* repo.update(other.org, inserted[1]!.id, { transcript: "x" })).toEqual(Option.none())

          expect(yield* repo.deactivate(other.org, "hello")).toBe(true)
          expect((yield* repo.findActive(org, ["hello"])).length).toBe(1)
          expect(yield* repo.deactivate(org, "hello")).toBe(true)
          expect(yield* repo.deactivate(org, "hello")).toBe(false)
          expect(Option.getOrThrow(yield* repo.findById(org, inserted[0]!.id)).is_active).toBe(false)
          expect(yield* repo.update(org, inserted[0]!.id, { transcript: "x" })).toEqual(Option.none())
          // The name of a deleted recording can be used again.
          expect(Option.isSome(yield* repo.insertAll([row(org, user, "hello")]))).toBe(true)
          expect((yield* repo.list(org, {})).map((r) => r.recording_id).sort()).toEqual(["farewell", "hello"])
        }))
    }
  )
}
