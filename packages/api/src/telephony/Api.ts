import { BadRequestResponse, ConflictResponse, NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { CreateTelephonyConfigurationRequest, ProviderMetadata, TelephonyConfigurationDetail, TelephonyConfigurationListItem, UpdateTelephonyConfigurationRequest } from "./TelephonyConfig.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { TelephonyConfigurationId } from "../Ids.js"
import { idPath } from "../Params.js"

const ConfigPath = idPath("config_id", TelephonyConfigurationId)

export class TelephonyConfigsApi extends HttpApiGroup.make("telephonyConfigs").annotate(OpenApi.Description, "Telephony configurations: a provider's credentials")
  .add(HttpApiEndpoint.get("metadata", "/organizations/telephony-providers/metadata").annotate(OpenApi.Summary, "Describe the telephony providers this server knows").addSuccess(ProviderMetadata))
  .add(
    HttpApiEndpoint.get("list", "/organizations/telephony-configs").annotate(OpenApi.Summary, "List telephony configurations")
      .addSuccess(Schema.Struct({ configurations: Schema.Array(TelephonyConfigurationListItem) }))
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/telephony-configs").annotate(OpenApi.Summary, "Create a telephony configuration").addError(ConflictResponse).addError(ValidationErrorResponse)
      .setPayload(CreateTelephonyConfigurationRequest)
      .addSuccess(TelephonyConfigurationDetail)
  )
  .add(HttpApiEndpoint.get("get", "/organizations/telephony-configs/:config_id").annotate(OpenApi.Summary, "Get a telephony configuration").addError(NotFoundResponse).setPath(ConfigPath).addSuccess(TelephonyConfigurationDetail))
  .add(
    HttpApiEndpoint.put("update", "/organizations/telephony-configs/:config_id").annotate(OpenApi.Summary, "Update a telephony configuration").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse)
      .setPath(ConfigPath)
      .setPayload(UpdateTelephonyConfigurationRequest)
      .addSuccess(TelephonyConfigurationDetail)
  )
  .add(
    HttpApiEndpoint.post("setDefaultOutbound", "/organizations/telephony-configs/:config_id/set-default-outbound").annotate(OpenApi.Summary, "Make a telephony configuration the default for outbound calls").addError(NotFoundResponse)
      .setPath(ConfigPath)
      .addSuccess(TelephonyConfigurationDetail)
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/telephony-configs/:config_id").annotate(OpenApi.Summary, "Delete a telephony configuration").addError(NotFoundResponse).addError(ConflictResponse)
      .setPath(ConfigPath)
      .addSuccess(Schema.Struct({ message: Schema.String }))
  )
  .middleware(Authentication)
{}
