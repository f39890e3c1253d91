import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Authentication } from "../Authentication.js"
import { PageParams, Success } from "../Params.js"
import { AddDoNotCallRequest, AddDoNotCallResponse, ImportDoNotCallRequest, DoNotCallCheck, DoNotCallPage, PhoneNumberQuery } from "./DoNotCall.js"

/**
 * The organization's do-not-call list. Any user may list, check and add numbers; removing one (calling
 * someone who asked not to be called) takes an administrator.
 */
export class DoNotCallApi extends HttpApiGroup.make("doNotCall")
  .add(HttpApiEndpoint.get("list", "/organizations/do-not-call").setUrlParams(PageParams).addSuccess(DoNotCallPage))
  .add(HttpApiEndpoint.post("add", "/organizations/do-not-call").setPayload(AddDoNotCallRequest).addSuccess(AddDoNotCallResponse))
  .add(
    HttpApiEndpoint.post("importCsv", "/organizations/do-not-call/import").setPayload(ImportDoNotCallRequest).addSuccess(AddDoNotCallResponse)
  )
  .add(HttpApiEndpoint.get("check", "/organizations/do-not-call/check").setUrlParams(PhoneNumberQuery).addSuccess(DoNotCallCheck))
  .add(HttpApiEndpoint.del("remove", "/organizations/do-not-call").setUrlParams(PhoneNumberQuery).addSuccess(Success))
  .middleware(Authentication)
{}
