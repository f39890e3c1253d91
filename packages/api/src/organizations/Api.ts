import { Organization } from "./Organization.js"
import { ConcurrencyLimitUpdate } from "./Organization.js"
import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Authentication } from "../Authentication.js"

export class OrganizationsApi extends HttpApiGroup.make("organizations")
  .add(HttpApiEndpoint.get("current", "/organizations/current").addSuccess(Organization))
  .add(
    HttpApiEndpoint.put("setConcurrentCallLimit", "/organizations/current/concurrent-call-limit")
      .setPayload(ConcurrencyLimitUpdate)
      .addSuccess(Organization)
  )
  .middleware(Authentication)
{}
