import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { WebhookDeliveryId, WebhookEndpointId } from "../Ids.js"
import { idFromString, PageParams, Success } from "../Params.js"
import {
  CreateWebhookEndpointRequest,
  UpdateWebhookEndpointRequest,
  WebhookDeliveriesPage,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret
} from "./Webhooks.js"

const base = "/organizations/webhooks"
const EndpointPath = Schema.Struct({ endpoint_id: idFromString(WebhookEndpointId) })
const DeliveryPath = Schema.Struct({ endpoint_id: idFromString(WebhookEndpointId), delivery_id: idFromString(WebhookDeliveryId) })

/**
 * The organization's event webhooks: endpoints, their secrets and their delivery logs. Any user of the
 * organization may manage them, as with the rest of the organization's settings.
 */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(HttpApiEndpoint.get("list", base).addSuccess(Schema.Struct({ endpoints: Schema.Array(WebhookEndpoint) })))
  .add(HttpApiEndpoint.post("create", base).setPayload(CreateWebhookEndpointRequest).addSuccess(WebhookEndpointWithSecret))
  .add(HttpApiEndpoint.get("get", `${base}/:endpoint_id`).setPath(EndpointPath).addSuccess(WebhookEndpoint))
  .add(
    HttpApiEndpoint.patch("update", `${base}/:endpoint_id`).setPath(EndpointPath).setPayload(UpdateWebhookEndpointRequest)
      .addSuccess(WebhookEndpoint)
  )
  .add(HttpApiEndpoint.del("delete", `${base}/:endpoint_id`).setPath(EndpointPath).addSuccess(Success))
  .add(HttpApiEndpoint.post("rotateSecret", `${base}/:endpoint_id/rotate-secret`).setPath(EndpointPath).addSuccess(WebhookEndpointWithSecret))
  .add(
    HttpApiEndpoint.get("deliveries", `${base}/:endpoint_id/deliveries`).setPath(EndpointPath).setUrlParams(PageParams)
      .addSuccess(WebhookDeliveriesPage)
  )
  .add(HttpApiEndpoint.post("resend", `${base}/:endpoint_id/deliveries/:delivery_id/resend`).setPath(DeliveryPath).addSuccess(WebhookDelivery))
  .middleware(Authentication)
{}
