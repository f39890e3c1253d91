import { BadRequestResponse, ConflictResponse, NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { CreatePhoneNumberRequest, PhoneNumber, ProviderSync, UpdatePhoneNumberRequest } from "./PhoneNumber.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { PhoneNumberId, TelephonyConfigurationId } from "../Ids.js"
import { idFromString } from "../Params.js"

const ConfigPath = Schema.Struct({ config_id: idFromString(TelephonyConfigurationId) })
const NumberPath = Schema.Struct({ config_id: idFromString(TelephonyConfigurationId), phone_number_id: idFromString(PhoneNumberId) })
const base = "/organizations/telephony-configs/:config_id/phone-numbers"

export class PhoneNumbersApi extends HttpApiGroup.make("phoneNumbers").annotate(OpenApi.Description, "Phone numbers and SIP addresses of a telephony configuration")
  .add(HttpApiEndpoint.get("list", base).annotate(OpenApi.Summary, "List a configuration's phone numbers").addError(NotFoundResponse).setPath(ConfigPath).addSuccess(Schema.Struct({ phone_numbers: Schema.Array(PhoneNumber) })))
  .add(HttpApiEndpoint.post("create", base).annotate(OpenApi.Summary, "Add a phone number to a configuration").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).setPath(ConfigPath).setPayload(CreatePhoneNumberRequest).addSuccess(PhoneNumber))
  .add(HttpApiEndpoint.get("get", `${base}/:phone_number_id`).annotate(OpenApi.Summary, "Get a phone number").addError(NotFoundResponse).setPath(NumberPath).addSuccess(PhoneNumber))
  .add(
    HttpApiEndpoint.put("update", `${base}/:phone_number_id`).annotate(OpenApi.Summary, "Update a phone number").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).setPath(NumberPath).setPayload(UpdatePhoneNumberRequest)
      .addSuccess(PhoneNumber)
  )
  .add(
    HttpApiEndpoint.del("delete", `${base}/:phone_number_id`).annotate(OpenApi.Summary, "Delete a phone number").addError(NotFoundResponse).setPath(NumberPath)
      .addSuccess(Schema.Struct({ message: Schema.String, provider_sync: Schema.NullOr(ProviderSync) }))
  )
  .add(HttpApiEndpoint.post("setDefaultCaller", `${base}/:phone_number_id/set-default-caller`).annotate(OpenApi.Summary, "Make a phone number the configuration's default caller").addError(NotFoundResponse).setPath(NumberPath).addSuccess(PhoneNumber))
  .middleware(Authentication)
{}
