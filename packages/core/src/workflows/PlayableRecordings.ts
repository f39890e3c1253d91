/**
 * Which recordings an agent may play: the organization's active recordings. A definition is checked
 * against it when it is saved. The recordings, which sit above the agents (a recording may name the
 * agent it was made for), implement it (`Recordings.playable`).
 */
import { Context, type Effect } from "effect"

export class PlayableRecordings extends Context.Tag("@agentline/core/PlayableRecordings")<
  PlayableRecordings,
  {
    /** Those of `recordingIds` that name an active recording of the organization. */
    readonly active: (organizationId: number, recordingIds: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>>
  }
>() {}
