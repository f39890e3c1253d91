/**
 * The unguessable part of a media stream URL. A provider connects an answered call's audio to
 * `/telephony/media/{provider}/{token}`; the token names the call attempt, works once and expires, so
 * a URL seen in a log or replayed by someone else opens nothing. Only its SHA-256 is stored.
 */
import { AttemptId } from "@agentline/api/Ids"
import { Clock, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { sha256 } from "../crypto/Digest.js"
import * as GroupCommit from "../GroupCommit.js"
import { iso } from "../Time.js"
import { MediaTokensRepo } from "./MediaTokensRepo.js"

/** A call is answered within its ring time (providers cap it at 10 minutes); an hour is ample. */
export const TOKEN_TTL_MILLIS = 60 * 60 * 1000


export class MediaTokens extends Effect.Service<MediaTokens>()("@agentline/core/MediaTokens", {
  scoped: Effect.gen(function*() {
    const repo = yield* MediaTokensRepo
    // Every call placed issues one: a busy dispatcher's tokens are committed together.
    const inserts = yield* GroupCommit.make((tokens: ReadonlyArray<Parameters<typeof repo.insert>[0][number]>) =>
      Effect.as(repo.insert(tokens), tokens.map(() => undefined))
    )

    const issue = Effect.fn("MediaTokens.issue")(function*(input: { readonly attemptId: AttemptId; readonly provider: string }) {
      const token = Crypto.randomBytes(32).toString("base64url")
      const now = yield* Clock.currentTimeMillis
      yield* inserts.write({ tokenHash: sha256(token), attemptId: input.attemptId, provider: input.provider, now: iso(now), expiresAt: iso(now + TOKEN_TTL_MILLIS) })
      return token
    })

    /** The attempt of a token presented for `provider`, once; none for a wrong, reused or expired token. */
    const redeem = Effect.fn("MediaTokens.redeem")(function*(input: { readonly token: string; readonly provider: string }) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(input.token)) return yield* Effect.succeed<Option.Option<AttemptId>>(Option.none())
      return yield* repo.redeem({ tokenHash: sha256(input.token), provider: input.provider, now: iso(yield* Clock.currentTimeMillis) })
    })

    /** `issue` for the attempts of one provider's calls (what `answerInstruction` takes). */
    const issuerFor = (provider: string) => (attemptId: number) => issue({ attemptId: AttemptId.make(attemptId), provider })

    return { issue, issuerFor, redeem } as const
  })
}) {}
