import { NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { Success } from "../Params.js"
import { CreateCredentialRequest, Credential, UpdateCredentialRequest } from "./Credentials.js"

const CredentialPath = Schema.Struct({ credential_uuid: Schema.String })

/** The organization's stored credentials (the reference's `/credentials`): any user of the organization. */
export class CredentialsApi extends HttpApiGroup.make("credentials").annotate(OpenApi.Description, "Credentials agents' tools and webhooks send")
  .add(HttpApiEndpoint.get("list", "/credentials").annotate(OpenApi.Summary, "List credentials").addSuccess(Schema.Array(Credential)))
  .add(HttpApiEndpoint.post("create", "/credentials").annotate(OpenApi.Summary, "Create a credential").addError(ValidationErrorResponse).setPayload(CreateCredentialRequest).addSuccess(Credential))
  .add(HttpApiEndpoint.get("get", "/credentials/:credential_uuid").annotate(OpenApi.Summary, "Get a credential").addError(NotFoundResponse).setPath(CredentialPath).addSuccess(Credential))
  .add(HttpApiEndpoint.put("update", "/credentials/:credential_uuid").annotate(OpenApi.Summary, "Update a credential").addError(NotFoundResponse).addError(ValidationErrorResponse).setPath(CredentialPath).setPayload(UpdateCredentialRequest).addSuccess(Credential))
  .add(HttpApiEndpoint.del("delete", "/credentials/:credential_uuid").annotate(OpenApi.Summary, "Delete a credential").addError(NotFoundResponse).setPath(CredentialPath).addSuccess(Success))
  .middleware(Authentication)
{}
