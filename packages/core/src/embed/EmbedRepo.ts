import { Context, type Effect, type Option } from "effect"

/** An embed token as stored: at most one active per agent; revoked ones are kept, inactive. */
export interface StoredEmbedToken {
  readonly id: number
  /** The public value a website's pages carry. */
  readonly token: string
  readonly organization_id: number
  readonly workflow_id: number
  readonly created_by: number | null
  /** Normalized entries (`Origins.ts`). */
  readonly allowed_origins: ReadonlyArray<string>
  readonly settings: Record<string, unknown> | null
  readonly usage_count: number
  readonly usage_limit: number | null
  readonly expires_at: string | null
  readonly is_active: boolean
  readonly created_at: string
  readonly updated_at: string
}

/** What an owner sets on a token. */
export interface EmbedTokenFields {
  readonly allowed_origins: ReadonlyArray<string>
  readonly settings: Record<string, unknown> | null
  readonly usage_limit: number | null
  readonly expires_at: string | null
}

/**
 * One visitor's session, opened by `/public/embed/init`: the credential a transport (web call, text
 * chat) is opened with. Only a hash of the session token is stored.
 */
export interface StoredEmbedSession {
  readonly id: number
  readonly embed_token_id: number
  readonly organization_id: number
  readonly workflow_id: number
  /** The published version at the session's start: the session runs it to its end. */
  readonly definition_id: number
  readonly workflow_run_id: number
  readonly modality: "voice" | "text"
  /** The page the session was opened from; a transport checks its requests come from it too. */
  readonly origin: string | null
  readonly client_address: string | null
  readonly user_agent: string | null
  readonly created_at: string
  readonly expires_at: string
  /** When a transport first used the session; null until then. */
  readonly attached_at: string | null
  readonly ended_at: string | null
}

export type NewEmbedSession = Omit<StoredEmbedSession, "id" | "attached_at" | "ended_at"> & { readonly token_hash: string }

/** Storage port for embed tokens and sessions. */
export class EmbedRepo extends Context.Tag("@agentline/core/EmbedRepo")<
  EmbedRepo,
  {
    readonly findActive: (organizationId: number, workflowId: number) => Effect.Effect<Option.Option<StoredEmbedToken>>
    /** A new active token for the agent; `None` when the agent got one meanwhile (one active token per agent). */
    readonly insert: (input: {
      readonly organization_id: number
      readonly workflow_id: number
      readonly created_by: number | null
      readonly token: string
      readonly fields: EmbedTokenFields
      readonly now: string
    }) => Effect.Effect<Option.Option<StoredEmbedToken>>
    /** Replaces the fields of an active token; `None` when it is not active any more. */
    readonly update: (id: number, fields: EmbedTokenFields, now: string) => Effect.Effect<Option.Option<StoredEmbedToken>>
    /** Deactivates the agent's active token for good; `None` when it has none. */
    readonly revoke: (organizationId: number, workflowId: number, now: string) => Effect.Effect<Option.Option<StoredEmbedToken>>
    /** By its public value, active or not, whatever the organization. */
    readonly findByToken: (token: string) => Effect.Effect<Option.Option<StoredEmbedToken>>
    /** Counts one more session if the token's usage limit allows it, atomically; whether it did. */
    readonly reserveUse: (tokenId: number) => Effect.Effect<boolean>
    readonly insertSession: (session: NewEmbedSession) => Effect.Effect<StoredEmbedSession>
    /** The session of a session token's hash, whatever its state (the caller checks expiry and its token). */
    readonly findSession: (tokenHash: string) => Effect.Effect<Option.Option<StoredEmbedSession>>
    /** A transport started the session's conversation: sets `attached_at` once (a later call keeps the first time). */
    readonly markAttached: (sessionId: number, now: string) => Effect.Effect<void>
    /** The session's conversation ended: sets `ended_at` once. */
    readonly markEnded: (sessionId: number, now: string) => Effect.Effect<void>
  }
>() {}
