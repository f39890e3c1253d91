import { Context, type Effect, type Option } from "effect"
import type { StoredTextChat, TextChatData } from "./TextChatSession.js"

/** Storage port for text chat sessions: one per run; every change is conditional on the revision it read. */
export class TextChatRepo extends Context.Tag("@agentline/core/TextChatRepo")<
  TextChatRepo,
  {
    /** `None` when the run has a session already (two requests started it at once). */
    readonly insert: (session: Omit<StoredTextChat, "updated_at">) => Effect.Effect<Option.Option<StoredTextChat>>
    /** The session of a run in the organization. */
    readonly find: (organizationId: number, runId: number) => Effect.Effect<Option.Option<StoredTextChat>>
    /**
     * Writes the session's new data and state, and counts one more revision, if its revision is still
     * `expectedRevision`; `None` when another change came first.
     */
    readonly save: (
      runId: number,
      expectedRevision: number,
      change: { readonly state: StoredTextChat["state"]; readonly data: TextChatData; readonly now: string }
    ) => Effect.Effect<Option.Option<StoredTextChat>>
  }
>() {}
