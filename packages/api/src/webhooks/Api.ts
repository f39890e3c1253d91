import { NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
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
export class WebhooksApi extends HttpApiGroup.make("webhooks").annotate(OpenApi.Description, "Event webhooks: endpoints, secrets and deliveries")
  .add(HttpApiEndpoint.get("list", base).annotate(OpenApi.Summary, "List event webhook endpoints").addSuccess(Schema.Struct({ endpoints: Schema.Array(WebhookEndpoint) })))
  .add(HttpApiEndpoint.post("create", base).annotate(OpenApi.Summary, "Create an event webhook endpoint").addError(ValidationErrorResponse).setPayload(CreateWebhookEndpointRequest).addSuccess(WebhookEndpointWithSecret))
  .add(HttpApiEndpoint.get("get", `${base}/:endpoint_id`).annotate(OpenApi.Summary, "Get an event webhook endpoint").addError(NotFoundResponse).setPath(EndpointPath).addSuccess(WebhookEndpoint))
  .add(
    HttpApiEndpoint.patch("update", `${base}/:endpoint_id`).annotate(OpenApi.Summary, "Update an event webhook endpoint").addError(NotFoundResponse).addError(ValidationErrorResponse).setPath(EndpointPath).setPayload(UpdateWebhookEndpointRequest)
      .addSuccess(WebhookEndpoint)
  )
  .add(HttpApiEndpoint.del("delete", `${base}/:endpoint_id`).annotate(OpenApi.Summary, "Delete an event webhook endpoint").addError(NotFoundResponse).setPath(EndpointPath).addSuccess(Success))
  .add(HttpApiEndpoint.post("rotateSecret", `${base}/:endpoint_id/rotate-secret`).annotate(OpenApi.Summary, "Rotate an endpoint's signing secret").addError(NotFoundResponse).setPath(EndpointPath).addSuccess(WebhookEndpointWithSecret))
  .add(
    HttpApiEndpoint.get("deliveries", `${base}/:endpoint_id/deliveries`).annotate(OpenApi.Summary, "List an endpoint's deliveries").addError(NotFoundResponse).setPath(EndpointPath).setUrlParams(PageParams)
      .addSuccess(WebhookDeliveriesPage)
  )
  .add(HttpApiEndpoint.post("resend", `${base}/:endpoint_id/deliveries/:delivery_id/resend`).annotate(OpenApi.Summary, "Send a delivery again").addError(NotFoundResponse).setPath(DeliveryPath).addSuccess(WebhookDelivery))
  .middleware(Authentication)
{}
