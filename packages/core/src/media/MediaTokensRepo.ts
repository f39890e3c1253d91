/** Storage port of media stream tokens (hashes only): issued per call attempt, redeemed once. */
import type { AttemptId } from "@agentline/api/Ids"
import { Context, type Effect, type Option } from "effect"

export class MediaTokensRepo extends Context.Tag("@agentline/core/MediaTokensRepo")<
  MediaTokensRepo,
  {
    /** Stores tokens' hashes (one statement); also forgets tokens that expired before their `now`. */
    readonly insert: (
      tokens: ReadonlyArray<{
        readonly tokenHash: string
        readonly attemptId: AttemptId
        readonly provider: string
        readonly now: string
        readonly expiresAt: string
      }>
    ) => Effect.Effect<void>
    /** Marks the token used and returns its attempt, if it exists for `provider`, is unused and unexpired. */
    readonly redeem: (input: {
      readonly tokenHash: string
      readonly provider: string
      readonly now: string
    }) => Effect.Effect<Option.Option<AttemptId>>
  }
>() {}
