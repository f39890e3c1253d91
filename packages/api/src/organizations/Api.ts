import { NotFoundResponse } from "../Errors.js"
import { Organization } from "./Organization.js"
import { ConcurrencyLimitUpdate } from "./Organization.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Authentication.js"

export class OrganizationsApi extends HttpApiGroup.make("organizations").annotate(OpenApi.Description, "The caller's organization and its limits")
  .add(HttpApiEndpoint.get("current", "/organizations/current").annotate(OpenApi.Summary, "The caller's organization").addSuccess(Organization))
  .add(
    HttpApiEndpoint.put("setConcurrentCallLimit", "/organizations/current/concurrent-call-limit").annotate(OpenApi.Summary, "Set the organization's concurrent call limit").addError(NotFoundResponse)
      .setPayload(ConcurrencyLimitUpdate)
      .addSuccess(Organization)
  )
  .middleware(Authentication)
{}
