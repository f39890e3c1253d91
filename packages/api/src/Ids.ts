/**
 * Branded ids. Every table's id is an integer on the wire and in storage; the brand keeps a
 * campaign id from being passed where a run id is expected (`setState(campaignId, ...)` with the
 * arguments swapped no longer compiles).
 */
import { Schema } from "effect"

export const OrganizationId = Schema.Int.pipe(Schema.brand("OrganizationId"))
export type OrganizationId = typeof OrganizationId.Type

export const UserId = Schema.Int.pipe(Schema.brand("UserId"))
export type UserId = typeof UserId.Type

export const ApiKeyId = Schema.Int.pipe(Schema.brand("ApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const WorkflowId = Schema.Int.pipe(Schema.brand("WorkflowId"))
export type WorkflowId = typeof WorkflowId.Type

export const DefinitionId = Schema.Int.pipe(Schema.brand("DefinitionId"))
export type DefinitionId = typeof DefinitionId.Type

export const RunId = Schema.Int.pipe(Schema.brand("RunId"))
export type RunId = typeof RunId.Type

export const CampaignId = Schema.Int.pipe(Schema.brand("CampaignId"))
export type CampaignId = typeof CampaignId.Type

export const ContactId = Schema.Int.pipe(Schema.brand("ContactId"))
export type ContactId = typeof ContactId.Type

export const AttemptId = Schema.Int.pipe(Schema.brand("AttemptId"))
export type AttemptId = typeof AttemptId.Type

export const TelephonyConfigurationId = Schema.Int.pipe(Schema.brand("TelephonyConfigurationId"))
export type TelephonyConfigurationId = typeof TelephonyConfigurationId.Type

export const PhoneNumberId = Schema.Int.pipe(Schema.brand("PhoneNumberId"))
export type PhoneNumberId = typeof PhoneNumberId.Type

export const WebhookEndpointId = Schema.Int.pipe(Schema.brand("WebhookEndpointId"))
export type WebhookEndpointId = typeof WebhookEndpointId.Type

export const WebhookDeliveryId = Schema.Int.pipe(Schema.brand("WebhookDeliveryId"))
export type WebhookDeliveryId = typeof WebhookDeliveryId.Type
