import { CreateTelephonyConfigurationRequest, ProviderMetadata, TelephonyConfigurationDetail, TelephonyConfigurationListItem, UpdateTelephonyConfigurationRequest } from "./TelephonyConfig.js"
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { TelephonyConfigurationId } from "../Ids.js"
import { idPath } from "../Params.js"

const ConfigPath = idPath("config_id", TelephonyConfigurationId)

export class TelephonyConfigsApi extends HttpApiGroup.make("telephonyConfigs")
  .add(HttpApiEndpoint.get("metadata", "/organizations/telephony-providers/metadata").addSuccess(ProviderMetadata))
  .add(
    HttpApiEndpoint.get("list", "/organizations/telephony-configs")
      .addSuccess(Schema.Struct({ configurations: Schema.Array(TelephonyConfigurationListItem) }))
  )
  .add(
    HttpApiEndpoint.post("create", "/organizations/telephony-configs")
      .setPayload(CreateTelephonyConfigurationRequest)
      .addSuccess(TelephonyConfigurationDetail)
  )
  .add(HttpApiEndpoint.get("get", "/organizations/telephony-configs/:config_id").setPath(ConfigPath).addSuccess(TelephonyConfigurationDetail))
  .add(
    HttpApiEndpoint.put("update", "/organizations/telephony-configs/:config_id")
      .setPath(ConfigPath)
      .setPayload(UpdateTelephonyConfigurationRequest)
      .addSuccess(TelephonyConfigurationDetail)
  )
  .add(
    HttpApiEndpoint.post("setDefaultOutbound", "/organizations/telephony-configs/:config_id/set-default-outbound")
      .setPath(ConfigPath)
      .addSuccess(TelephonyConfigurationDetail)
  )
  .add(
    HttpApiEndpoint.del("delete", "/organizations/telephony-configs/:config_id")
      .setPath(ConfigPath)
      .addSuccess(Schema.Struct({ message: Schema.String }))
  )
  .middleware(Authentication)
{}
