import type { DoNotCallEntry } from "@agentline/api/do-not-call/DoNotCall"
import { Context, type Effect, type Option } from "effect"

export interface NewDoNotCallEntry {
  readonly phone_number: string
  readonly reason: string | null
  readonly source: "api" | "run"
  readonly run_id: number | null
}

/** Storage port for the do-not-call list; numbers are stored normalized. */
export class DoNotCallRepo extends Context.Tag("@agentline/core/DoNotCallRepo")<
  DoNotCallRepo,
  {
    /** Adds the entries not listed yet (an existing entry is kept as it was); how many were new. */
    readonly add: (organizationId: number, entries: ReadonlyArray<NewDoNotCallEntry>, now: string) => Effect.Effect<number>
    /** Whether the number was listed. */
    readonly remove: (organizationId: number, phoneNumber: string) => Effect.Effect<boolean>
    readonly find: (organizationId: number, phoneNumber: string) => Effect.Effect<Option.Option<DoNotCallEntry>>
    readonly page: (
      organizationId: number,
      page: { readonly offset: number; readonly limit: number }
    ) => Effect.Effect<{ readonly entries: ReadonlyArray<DoNotCallEntry>; readonly total: number }>
  }
>() {}
