/**
 * Answers of the API read as what they are: decoded with a schema (the API's own where it has one),
 * so a test works with typed values and an answer of the wrong shape fails the test where it is read.
 */
import { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import { ValidationIssue } from "@agentline/api/Errors"
import { WebhookEventType } from "@agentline/api/webhooks/Webhooks"
import { Schema } from "effect"

/** `body` decoded with `schema` (a decode failure throws, failing the test, with what did not match). */
export const decode = <A, I>(schema: Schema.Schema<A, I>, body: unknown): A => Schema.decodeUnknownSync(schema)(body)

/** The items of a list answer, each decoded with `item`. */
export const listOf = <A, I>(item: Schema.Schema<A, I>, body: unknown): ReadonlyArray<A> => decode(Schema.Array(item), body)

const ValidationAnswer = Schema.Struct({ detail: Schema.Array(ValidationIssue) })

/** The issues of a 422 answer (`{detail: [...]}`), with the API's schema. */
export const issuesOf = (body: unknown): ReadonlyArray<ValidationIssue> => decode(ValidationAnswer, body).detail

/** Where each issue of a 422 answer is, dotted: `body.credential_data.header_name`. */
export const locsOf = (body: unknown): ReadonlyArray<string> => issuesOf(body).map((issue) => issue.loc.join("."))

/** Something with a numeric `id` (agents, keys, runs, versions...). */
export const WithId = Schema.Struct({ id: Schema.Number })

/** The `id`s of a list answer, in order. */
export const idsOf = (body: unknown): ReadonlyArray<number> => listOf(WithId, body).map((item) => item.id)

/** A campaign as the create endpoint would receive it, decoded (defaults filled in) for `Campaigns.create`. */
export const campaignRequest = Schema.decodeSync(CreateCampaignRequest)

/**
 * A webhook event as a receiver gets it (`{type, timestamp, data}`, Standard Webhooks), with the fields
 * of `data` the tests read typed and the others kept.
 */
export const WebhookEvent = Schema.Struct({
  type: WebhookEventType,
  timestamp: Schema.String,
  data: Schema.Struct({
    run_id: Schema.optional(Schema.Number),
    seq: Schema.optional(Schema.Number),
    state: Schema.optional(Schema.String),
    links: Schema.optional(Schema.Struct({ run: Schema.String })),
    counters: Schema.optional(Schema.Unknown)
  }, Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})
export type WebhookEvent = typeof WebhookEvent.Type
