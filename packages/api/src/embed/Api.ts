import { ConflictResponse, ForbiddenResponse, NotFoundResponse, TooManyRequestsResponse, ValidationErrorResponse } from "../Errors.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { WorkflowId } from "../Ids.js"
import { idFromString } from "../Params.js"
import { EmbedConfig, EmbedTokenRequest, EmbedTokenResponse, EmbedTokenRevoked, InitEmbedRequest, InitEmbedResponse } from "./Embed.js"

const WorkflowPath = Schema.Struct({ workflow_id: idFromString(WorkflowId) })

/** The agent's embed token (one active token per agent), managed by the organization. */
export class EmbedTokensApi extends HttpApiGroup.make("embedTokens").annotate(OpenApi.Description, "Embed tokens: an agent on a web page")
  .add(
    HttpApiEndpoint.post("save", "/workflow/:workflow_id/embed-token").annotate(OpenApi.Summary, "Create or update an agent's embed token").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).setPath(WorkflowPath).setPayload(EmbedTokenRequest)
      .addSuccess(EmbedTokenResponse)
  )
  .add(HttpApiEndpoint.get("get", "/workflow/:workflow_id/embed-token").annotate(OpenApi.Summary, "Get an agent's embed token").addError(NotFoundResponse).setPath(WorkflowPath).addSuccess(Schema.NullOr(EmbedTokenResponse)))
  .add(HttpApiEndpoint.del("revoke", "/workflow/:workflow_id/embed-token").annotate(OpenApi.Summary, "Revoke an agent's embed token").addError(NotFoundResponse).setPath(WorkflowPath).addSuccess(EmbedTokenRevoked))
  .middleware(Authentication)
{}

/**
 * What a website's widget calls, with no credentials but the embed token: from the origins the token
 * allows (the `Origin` header), with answers readable cross-origin (CORS) there.
 */
export class PublicEmbedApi extends HttpApiGroup.make("publicEmbed").annotate(OpenApi.Description, "The embedded widget's public endpoints")
  .add(HttpApiEndpoint.post("init", "/public/embed/init").annotate(OpenApi.Summary, "Start an embedded call session").addError(ForbiddenResponse).addError(NotFoundResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse).setPayload(InitEmbedRequest).addSuccess(InitEmbedResponse))
  .add(
    HttpApiEndpoint.get("config", "/public/embed/config/:token").annotate(OpenApi.Summary, "Get an embed token's widget settings").addError(ForbiddenResponse).addError(NotFoundResponse).addError(TooManyRequestsResponse).setPath(Schema.Struct({ token: Schema.String }))
      .addSuccess(EmbedConfig)
  )
{}
