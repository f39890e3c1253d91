/**
 * Runs an effect in one storage transaction, so that several repositories' operations commit or roll
 * back together (the storage adapter shares one connection within it). Nested calls join the outer one.
 */
import { Context, type Effect } from "effect"

export class Transactor extends Context.Tag("@agentline/core/Transactor")<
  Transactor,
  { readonly withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> }
>() {}
