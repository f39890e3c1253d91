import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { Success } from "../Params.js"
import { CreateCredentialRequest, Credential, UpdateCredentialRequest } from "./Credentials.js"

const CredentialPath = Schema.Struct({ credential_uuid: Schema.String })

/** The organization's stored credentials (the reference's `/credentials`): any user of the organization. */
export class CredentialsApi extends HttpApiGroup.make("credentials")
  .add(HttpApiEndpoint.get("list", "/credentials").addSuccess(Schema.Array(Credential)))
  .add(HttpApiEndpoint.post("create", "/credentials").setPayload(CreateCredentialRequest).addSuccess(Credential))
  .add(HttpApiEndpoint.get("get", "/credentials/:credential_uuid").setPath(CredentialPath).addSuccess(Credential))
  .add(HttpApiEndpoint.put("update", "/credentials/:credential_uuid").setPath(CredentialPath).setPayload(UpdateCredentialRequest).addSuccess(Credential))
  .add(HttpApiEndpoint.del("delete", "/credentials/:credential_uuid").setPath(CredentialPath).addSuccess(Success))
  .middleware(Authentication)
{}
