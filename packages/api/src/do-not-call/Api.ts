import { BadRequestResponse, NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Authentication } from "../Authentication.js"
import { PageParams, Success } from "../Params.js"
import { AddDoNotCallRequest, AddDoNotCallResponse, ImportDoNotCallRequest, DoNotCallCheck, DoNotCallPage, PhoneNumberQuery } from "./DoNotCall.js"

/**
 * The organization's do-not-call list. Any user may list, check and add numbers; removing one (calling
 * someone who asked not to be called) takes an administrator.
 */
export class DoNotCallApi extends HttpApiGroup.make("doNotCall").annotate(OpenApi.Description, "Numbers the organization never calls")
  .add(HttpApiEndpoint.get("list", "/organizations/do-not-call").annotate(OpenApi.Summary, "List the do-not-call numbers").setUrlParams(PageParams).addSuccess(DoNotCallPage))
  .add(HttpApiEndpoint.post("add", "/organizations/do-not-call").annotate(OpenApi.Summary, "Add numbers to the do-not-call list").addError(ValidationErrorResponse).setPayload(AddDoNotCallRequest).addSuccess(AddDoNotCallResponse))
  .add(
    HttpApiEndpoint.post("importCsv", "/organizations/do-not-call/import").annotate(OpenApi.Summary, "Import do-not-call numbers from a CSV file").addError(BadRequestResponse).setPayload(ImportDoNotCallRequest).addSuccess(AddDoNotCallResponse)
  )
  .add(HttpApiEndpoint.get("check", "/organizations/do-not-call/check").annotate(OpenApi.Summary, "Check whether a number may be called").addError(ValidationErrorResponse).setUrlParams(PhoneNumberQuery).addSuccess(DoNotCallCheck))
  .add(HttpApiEndpoint.del("remove", "/organizations/do-not-call").annotate(OpenApi.Summary, "Remove numbers from the do-not-call list").addError(NotFoundResponse).addError(ValidationErrorResponse).setUrlParams(PhoneNumberQuery).addSuccess(Success))
  .middleware(Authentication)
{}
