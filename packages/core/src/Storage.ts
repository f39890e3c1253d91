/**
 * The one storage failure the domain can act on: the storage could not carry out an operation (the
 * connection dropped, the database is down or refused the statement). Repositories do not put it in
 * their signatures: like every infrastructure failure it is a defect at the repository port, but a
 * defect of this type, which the storage adapter raises and core recognizes without knowing the adapter.
 * The few callers that can act on it (writes the dispatcher retries, the group commit, reads an HTTP
 * request may try again) take it back as a typed failure with `failures`.
 */
import { Cause, Effect, Option, Schema } from "effect"

export class StorageError extends Schema.TaggedError<StorageError>()("StorageError", { cause: Schema.Defect }) {
  override get message() {
    return `The storage failed: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

export const isStorageError = (u: unknown): u is StorageError => u instanceof StorageError

/** The storage failure `cause` holds (as a defect), if any. */
export const storageErrorIn = (cause: Cause.Cause<unknown>): Option.Option<StorageError> =>
  Cause.find(cause, (reason) => (reason._tag === "Die" && isStorageError(reason.defect) ? Option.some(reason.defect) : Option.none()))

/** `effect` with a storage failure as a typed failure instead of a defect; other defects stay defects. */
export const failures = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StorageError, R> =>
  Effect.catchAllDefect(effect, (defect) => (isStorageError(defect) ? Effect.fail(defect) : Effect.die(defect)))
