import { NotFoundResponse } from "../Errors.js"
import { ApiKey, CreateApiKeyRequest, CreatedApiKey } from "./ApiKey.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { ApiKeyId } from "../Ids.js"
import { BooleanFromString, idPath, Success } from "../Params.js"

export class ApiKeysApi extends HttpApiGroup.make("apiKeys").annotate(OpenApi.Description, "The organization's API keys")
  .add(
    HttpApiEndpoint.get("list", "/user/api-keys").annotate(OpenApi.Summary, "List the organization's API keys")
      .setUrlParams(Schema.Struct({ include_archived: Schema.optionalWith(BooleanFromString, { default: () => false }) }))
      .addSuccess(Schema.Array(ApiKey))
  )
  .add(HttpApiEndpoint.post("create", "/user/api-keys").annotate(OpenApi.Summary, "Create an API key").setPayload(CreateApiKeyRequest).addSuccess(CreatedApiKey))
  .add(HttpApiEndpoint.del("archive", "/user/api-keys/:api_key_id").annotate(OpenApi.Summary, "Archive an API key").addError(NotFoundResponse).setPath(idPath("api_key_id", ApiKeyId)).addSuccess(Success))
  .add(
    HttpApiEndpoint.put("reactivate", "/user/api-keys/:api_key_id/reactivate").annotate(OpenApi.Summary, "Reactivate an archived API key").addError(NotFoundResponse).setPath(idPath("api_key_id", ApiKeyId)).addSuccess(
      Success
    )
  )
  .middleware(Authentication)
{}
