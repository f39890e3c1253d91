import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { Webhooks } from "@agentline/core/webhooks/Webhooks"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"

export const WebhooksLive = HttpApiBuilder.group(AgentlineApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", () => Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.list(p))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.create(p, payload))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.get(p, path.endpoint_id))))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.update(p, path.endpoint_id, payload))))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.remove(p, path.endpoint_id))))
      .handle("rotateSecret", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.rotateSecret(p, path.endpoint_id))))
      .handle("deliveries", ({ path, urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.deliveries(p, path.endpoint_id, urlParams.page, urlParams.limit))))
      .handle("resend", ({ path }) =>
        Effect.flatMap(CurrentPrincipal, (p) => wire(webhooks.resend(p, path.endpoint_id, path.delivery_id))))
  }))
