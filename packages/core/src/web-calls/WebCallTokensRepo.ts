/** Storage port of web call tokens (hashes only): issued with a web call's run, redeemed once. */
import type { RunId } from "@agentline/api/Ids"
import { Context, type Effect, type Option } from "effect"

export class WebCallTokensRepo extends Context.Tag("@agentline/core/WebCallTokensRepo")<
  WebCallTokensRepo,
  {
    /** Stores a token's hash for `runId`; also forgets tokens that expired before `now`. */
    readonly insert: (token: {
      readonly tokenHash: string
      readonly runId: RunId
      readonly organizationId: number
      readonly now: string
      readonly expiresAt: string
    }) => Effect.Effect<void>
    /** Marks the token used and returns its run, if it exists, is unused and unexpired (one statement). */
    readonly redeem: (input: { readonly tokenHash: string; readonly now: string }) => Effect.Effect<Option.Option<RunId>>
  }
>() {}
