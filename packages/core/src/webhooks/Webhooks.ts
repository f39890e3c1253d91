/**
 * An organization's webhook endpoints: where its events are sent, which ones, with which secret, and
 * what became of each delivery. Secrets are `whsec_` + 24 random bytes (base64), as Standard Webhooks
 * libraries expect; they are sealed at rest (`SecretBox`) and shown once, on creation and rotation.
 */
import type { Principal } from "@agentline/api/Authentication"
import { OrganizationId, type WebhookDeliveryId, type WebhookEndpointId } from "@agentline/api/Ids"
import type {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookEndpoint
} from "@agentline/api/webhooks/Webhooks"
import { Clock, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { SecretBox } from "../crypto/SecretBox.js"
import { iso } from "../Time.js"
import { WebhookDeliveryNotFound, WebhookEndpointNotFound, WebhookTargetRefused } from "./Errors.js"
import { refusedTarget } from "../OutboundTargets.js"
import { WebhookSettings } from "./WebhookSettings.js"
import { type StoredEndpoint, WebhooksRepo } from "./WebhooksRepo.js"

/** A new signing secret in the Standard Webhooks format. */
export const newSecret = (): string => `whsec_${Crypto.randomBytes(24).toString("base64")}`

const wire = ({ organization_id: _, sealed_secret: __, ...endpoint }: StoredEndpoint): WebhookEndpoint => endpoint

export class Webhooks extends Effect.Service<Webhooks>()("@agentline/core/Webhooks", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhooksRepo
    const box = yield* SecretBox
    const settings = yield* WebhookSettings
    const now = Effect.map(Clock.currentTimeMillis, iso)

    const checkTarget = (url: string) => {
      const reason = refusedTarget(url, settings.allowPrivate)
      return reason === undefined ? Effect.void : Effect.fail(new WebhookTargetRefused({ url, reason }))
    }

    const found = (principal: Principal, id: WebhookEndpointId) =>
      Effect.flatMap(
        repo.findEndpoint(OrganizationId.make(principal.organizationId), id),
        Option.match({ onNone: () => Effect.fail(new WebhookEndpointNotFound({ endpointId: id })), onSome: Effect.succeed })
      )

    const list = Effect.fn("Webhooks.list")(function*(principal: Principal) {
      const endpoints = yield* repo.listEndpoints(OrganizationId.make(principal.organizationId))
      return { endpoints: endpoints.map(wire) }
    })

    const create = Effect.fn("Webhooks.create")(function*(principal: Principal, request: CreateWebhookEndpointRequest) {
      yield* checkTarget(request.url)
      const secret = newSecret()
      const endpoint = yield* repo.insertEndpoint({
        organization_id: OrganizationId.make(principal.organizationId),
        url: request.url,
        description: request.description,
        event_types: [...new Set(request.event_types)],
        enabled: request.enabled,
        sealed_secret: box.encrypt(secret),
        now: yield* now
      })
      return { ...wire(endpoint), secret }
    })

    const get = Effect.fn("Webhooks.get")(function*(principal: Principal, id: WebhookEndpointId) {
      return wire(yield* found(principal, id))
    })

    const update = Effect.fn("Webhooks.update")(
      function*(principal: Principal, id: WebhookEndpointId, request: UpdateWebhookEndpointRequest) {
        if (request.url !== undefined) yield* checkTarget(request.url)
        const updated = yield* repo.updateEndpoint(OrganizationId.make(principal.organizationId), id, {
          ...(request.url !== undefined ? { url: request.url } : {}),
          ...(request.description !== undefined ? { description: request.description } : {}),
          ...(request.event_types !== undefined ? { event_types: [...new Set(request.event_types)] } : {}),
          // Enabling (again) clears why the server had disabled it.
          ...(request.enabled !== undefined ? { enabled: request.enabled, ...(request.enabled ? { disabled_reason: null } : {}) } : {})
        }, yield* now)
        if (Option.isNone(updated)) return yield* new WebhookEndpointNotFound({ endpointId: id })
        return wire(updated.value)
      }
    )

    const remove = Effect.fn("Webhooks.remove")(function*(principal: Principal, id: WebhookEndpointId) {
      if (!(yield* repo.deleteEndpoint(OrganizationId.make(principal.organizationId), id))) {
        return yield* new WebhookEndpointNotFound({ endpointId: id })
      }
      return { success: true, message: `Webhook endpoint ${id} deleted with its delivery log` }
    })

    /** A new secret at once: deliveries from now on are signed with it (the old one stops verifying). */
    const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function*(principal: Principal, id: WebhookEndpointId) {
      const secret = newSecret()
      const updated = yield* repo.updateEndpoint(OrganizationId.make(principal.organizationId), id, {
        sealed_secret: box.encrypt(secret)
      }, yield* now)
      if (Option.isNone(updated)) return yield* new WebhookEndpointNotFound({ endpointId: id })
      return { ...wire(updated.value), secret }
    })

    const deliveries = Effect.fn("Webhooks.deliveries")(
      function*(principal: Principal, id: WebhookEndpointId, page: number, limit: number) {
        yield* found(principal, id)
        const result = yield* repo.deliveries(OrganizationId.make(principal.organizationId), id, {
          offset: (page - 1) * limit,
          limit
        })
        return { deliveries: result.deliveries, total_count: result.total, page, limit, total_pages: Math.ceil(result.total / limit) }
      }
    )

    /** Sends a delivery again (as soon as the worker gets to it), whatever became of it before. */
    const resend = Effect.fn("Webhooks.resend")(
      function*(principal: Principal, id: WebhookEndpointId, deliveryId: WebhookDeliveryId) {
        yield* found(principal, id)
        const resent = yield* repo.resend(OrganizationId.make(principal.organizationId), id, deliveryId, yield* now)
        if (Option.isNone(resent)) return yield* new WebhookDeliveryNotFound({ deliveryId })
        return resent.value
      }
    )

    return { list, create, get, update, remove, rotateSecret, deliveries, resend } as const
  })
}) {}
