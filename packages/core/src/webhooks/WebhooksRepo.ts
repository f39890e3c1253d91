import type { OrganizationId, WebhookDeliveryId, WebhookEndpointId } from "@agentline/api/Ids"
import type { WebhookAttempt, WebhookDelivery, WebhookEventType } from "@agentline/api/webhooks/Webhooks"
import { Context, type Effect, type Option } from "effect"

/** An endpoint as stored: its secret sealed (`SecretBox`). */
export interface StoredEndpoint {
  readonly id: WebhookEndpointId
  readonly organization_id: OrganizationId
  readonly url: string
  readonly description: string | null
  readonly event_types: ReadonlyArray<WebhookEventType>
  readonly enabled: boolean
  readonly sealed_secret: string
  readonly disabled_reason: string | null
  readonly failing_since: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface EndpointPatch {
  readonly url?: string
  readonly description?: string | null
  readonly event_types?: ReadonlyArray<WebhookEventType>
  readonly enabled?: boolean
  readonly disabled_reason?: string | null
  readonly sealed_secret?: string
}

/** An event to deliver to every enabled endpoint of the organization subscribed to its type. */
export interface OutboxEvent {
  readonly organization_id: OrganizationId
  readonly message_id: string
  readonly event_type: WebhookEventType
  /** Deliveries with the same key go to an endpoint one after the other, in the order written. */
  readonly ordering_key: string
  readonly payload: unknown
  readonly now: string
}

/** Where a workflow `webhook` node's request goes, as its node said. */
export interface DirectTarget {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** A stored credential whose headers are added when the request is sent (never stored here). */
  readonly credential_uuid: string | null
  /** The node, for the run's logs. */
  readonly node_id: string
  readonly node_name: string
}

/** A workflow `webhook` node's request for one run: no endpoint, no signature, reported in the run's logs. */
export interface DirectRequest {
  readonly organization_id: OrganizationId
  readonly run_id: number
  readonly message_id: string
  readonly ordering_key: string
  readonly target: DirectTarget
  /** The rendered body (JSON), or null for a request without one (GET, DELETE). */
  readonly payload: unknown
  readonly now: string
}

/** A delivery claimed for one attempt, with where it goes. */
export interface ClaimedDelivery {
  readonly id: WebhookDeliveryId
  /** Null for a workflow node's request (`target`). */
  readonly endpoint_id: WebhookEndpointId | null
  readonly run_id: number | null
  readonly target: DirectTarget | null
  readonly organization_id: OrganizationId
  readonly url: string
  /** Null for a workflow node's request: it is not signed. */
  readonly sealed_secret: string | null
  readonly message_id: string
  readonly event_type: string
  readonly payload: unknown
  readonly attempt_count: number
  readonly created_at: string
  /** Whether its endpoint was failing when the delivery was claimed (an answer then clears that). */
  readonly endpoint_failing: boolean
}

/** A delivery due now, as far as choosing which to claim needs it. */
export interface DueDelivery {
  readonly id: WebhookDeliveryId
  /** Null for a workflow node's request. */
  readonly endpoint_id: WebhookEndpointId | null
  readonly ordering_key: string
  /** The endpoint's URL, or the node request's own. */
  readonly url: string
}

/** One attempt of a delivery and what became of the delivery. */
export interface RecordedAttempt {
  readonly id: WebhookDeliveryId
  readonly attempt: WebhookAttempt
  readonly outcome: AttemptOutcome
}

/** What became of a delivery after an attempt. */
export type AttemptOutcome =
  | { readonly status: "delivered"; readonly at: string }
  | { readonly status: "pending"; readonly next_attempt_at: string }
  | { readonly status: "failed" }

/** Storage port for webhook endpoints and their outbox of deliveries. */
export class WebhooksRepo extends Context.Tag("@agentline/core/WebhooksRepo")<
  WebhooksRepo,
  {
    readonly insertEndpoint: (input: {
      readonly organization_id: OrganizationId
      readonly url: string
      readonly description: string | null
      readonly event_types: ReadonlyArray<WebhookEventType>
      readonly enabled: boolean
      readonly sealed_secret: string
      readonly now: string
    }) => Effect.Effect<StoredEndpoint>
    readonly listEndpoints: (organizationId: OrganizationId) => Effect.Effect<ReadonlyArray<StoredEndpoint>>
    readonly findEndpoint: (organizationId: OrganizationId, id: WebhookEndpointId) => Effect.Effect<Option.Option<StoredEndpoint>>
    readonly updateEndpoint: (
      organizationId: OrganizationId,
      id: WebhookEndpointId,
      patch: EndpointPatch,
      now: string
    ) => Effect.Effect<Option.Option<StoredEndpoint>>
    /** Deletes the endpoint with its deliveries; whether it existed. */
    readonly deleteEndpoint: (organizationId: OrganizationId, id: WebhookEndpointId) => Effect.Effect<boolean>
    /** Writes the events' deliveries (in the caller's transaction); how many deliveries that made. */
    readonly enqueue: (events: ReadonlyArray<OutboxEvent>) => Effect.Effect<number>
    /** Writes a workflow node's request (in the caller's transaction). */
    readonly enqueueDirect: (request: DirectRequest) => Effect.Effect<void>
    /**
     * Up to `limit` deliveries due at `now`, first due first: pending, not claimed, of enabled endpoints,
     * and first in line (no earlier pending delivery of the same endpoint and ordering key). Only what
     * choosing among them takes; `claim` reads the rest of those chosen.
     */
    readonly due: (now: string, limit: number) => Effect.Effect<ReadonlyArray<DueDelivery>>
    /**
     * Takes the given due deliveries for one attempt each until `lockedUntil`, in one statement; those
     * it took (another worker may have taken some first), in the order given.
     */
    readonly claim: (
      ids: ReadonlyArray<WebhookDeliveryId>,
      now: string,
      lockedUntil: string
    ) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
    /**
     * Appends each attempt to its delivery's log, sets its outcome and releases it: any number of
     * deliveries in one statement (the caller's transaction groups them with whatever else it writes).
     */
    readonly recordAttempts: (attempts: ReadonlyArray<RecordedAttempt>) => Effect.Effect<void>
    /** The endpoint answered: it is healthy again. */
    readonly markHealthy: (id: WebhookEndpointId) => Effect.Effect<void>
    /** The endpoint failed at `now`: since when it has been failing (the first failure since it last answered). */
    readonly markFailing: (id: WebhookEndpointId, now: string) => Effect.Effect<string>
    readonly deliveries: (
      organizationId: OrganizationId,
      endpointId: WebhookEndpointId,
      page: { readonly offset: number; readonly limit: number }
    ) => Effect.Effect<{ readonly deliveries: ReadonlyArray<WebhookDelivery>; readonly total: number }>
    /** Puts a delivery back in line for now, whatever became of it; `None` when there is no such delivery. */
    readonly resend: (
      organizationId: OrganizationId,
      endpointId: WebhookEndpointId,
      id: WebhookDeliveryId,
      now: string
    ) => Effect.Effect<Option.Option<WebhookDelivery>>
  }
>() {}
