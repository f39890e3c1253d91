/**
 * The public embed's chat (docs/embed.md, "Chat"): a visitor's chat widget talks with the session
 * `/public/embed/init` opened, by its session token. The session must be a chat session, not expired,
 * its embed token still active, and each request from the page that opened it. The conversation is a
 * text chat session (`TextChat`) on the session's run, which runs the version published when the
 * session opened; it is started (the agent's opening) on the first request.
 *
 * Per visitor (client address) per session: `VISITOR_MESSAGES` messages, then 429; a session takes at
 * most `MAX_TURNS` turns.
 */
import { EmbedRepo, type StoredEmbedSession } from "@agentline/core/embed/EmbedRepo"
import type { StoredTextChat } from "@agentline/core/text-chat/TextChatSession"
import { EmbedVisitorThrottled } from "@agentline/core/embed/Errors"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { EmbedChatRefused, TextChatNotFound } from "@agentline/core/text-chat/Errors"
import { addressKey, UNKNOWN_ADDRESS } from "@agentline/core/users/LoginThrottle"
import { RateLimiter } from "@effect/experimental"
import { Clock, Duration, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { publicView } from "./ChatTurns.js"
import { TextChat } from "./TextChat.js"

/** Messages per visitor per session. */
export const VISITOR_MESSAGES = { limit: 20, window: Duration.minutes(1) } as const
/** Turns a visitor's session may take (each one is a paid language model turn). */
export const MAX_TURNS = 100

export interface ChatVisitor {
  readonly origin: string | undefined
  readonly address: string
}

const sha256 = (text: string) => Crypto.createHash("sha256").update(text).digest("hex")

export class EmbedChat extends Effect.Service<EmbedChat>()("@agentline/voice/EmbedChat", {
  effect: Effect.gen(function*() {
    const embeds = yield* EmbedRepo
    const runs = yield* RunsRepo
    const chat = yield* TextChat
    const limiter = yield* RateLimiter.RateLimiter

    /** The session's run and text chat, when the session may chat from the visitor's page now. */
    const open = (sessionToken: string, visitor: ChatVisitor) =>
      Effect.gen(function*() {
        const found = yield* embeds.findSession(sha256(sessionToken))
        if (Option.isNone(found)) return yield* new EmbedChatRefused({ reason: "Invalid or expired session" })
        const session = found.value
        if (Date.parse(session.expires_at) <= (yield* Clock.currentTimeMillis)) return yield* new EmbedChatRefused({ reason: "Invalid or expired session" })
        if (session.modality !== "text") return yield* new EmbedChatRefused({ reason: "This session is not a chat session" })
        if (session.origin !== null && visitor.origin !== session.origin) {
          return yield* new EmbedChatRefused({ reason: `Domain not allowed: ${visitor.origin ?? "no Origin header"}` })
        }
        // Revoking the token ends its sessions' chats at once.
        const token = yield* embeds.findActive(session.organization_id, session.workflow_id)
        if (Option.isNone(token) || token.value.id !== session.embed_token_id) return yield* new EmbedChatRefused({ reason: "Embed token is inactive" })
        const run = yield* runs.find(session.organization_id, session.workflow_run_id)
        if (Option.isNone(run)) return yield* new TextChatNotFound({ runId: session.workflow_run_id })
        const text = yield* chat.start(run.value)
        if (session.attached_at === null) yield* embeds.markAttached(session.id, new Date(yield* Clock.currentTimeMillis).toISOString())
        return { session, run: run.value, text }
      })

    const throttle = (sessionToken: string, visitor: ChatVisitor) =>
      visitor.address === UNKNOWN_ADDRESS
        ? Effect.void
        : limiter.consume({ key: `embed:chat:${sha256(sessionToken)}:${addressKey(visitor.address)}`, limit: VISITOR_MESSAGES.limit, window: VISITOR_MESSAGES.window }).pipe(
          Effect.asVoid,
          Effect.catchTag("RateLimiterError", (error) =>
            error.reason === "Exceeded"
              ? Effect.fail(new EmbedVisitorThrottled({ retryAfterSeconds: Math.max(1, Math.ceil(Duration.toSeconds(error.retryAfter))) }))
              : Effect.die(error))
        )

    const get = Effect.fn("EmbedChat.get")(function*(sessionToken: string, visitor: ChatVisitor) {
      return publicView((yield* open(sessionToken, visitor)).text)
    })

    /** Sets the embed session's `ended_at` once its conversation is over (the visitor's end, or the agent's). */
    const endedWhenOver = (session: StoredEmbedSession, text: StoredTextChat) =>
      text.state === "completed" && session.ended_at === null
        ? Effect.flatMap(Clock.currentTimeMillis, (millis) => embeds.markEnded(session.id, new Date(millis).toISOString()))
        : Effect.void

    const message = Effect.fn("EmbedChat.message")(function*(
      sessionToken: string,
      visitor: ChatVisitor,
      request: { readonly text: string; readonly expected_revision?: number | null | undefined }
    ) {
      const { run, session, text } = yield* open(sessionToken, visitor)
      yield* throttle(sessionToken, visitor)
      if (text.data.turns.length >= MAX_TURNS) return yield* new EmbedChatRefused({ reason: `This chat has reached its ${MAX_TURNS} messages; start a new one` })
      const after = yield* chat.appendTo(run, text, request.text, request.expected_revision)
      yield* endedWhenOver(session, after)
      return publicView(after)
    })

    const end = Effect.fn("EmbedChat.end")(function*(sessionToken: string, visitor: ChatVisitor, request: { readonly expected_revision?: number | null | undefined }) {
      const { run, session, text } = yield* open(sessionToken, visitor)
      const after = yield* chat.endSession(run, text, request.expected_revision)
      yield* endedWhenOver(session, after)
      return publicView(after)
    })

    return { get, message, end } as const
  })
}) {}
