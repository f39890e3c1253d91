import { BadRequestResponse, ConflictResponse, NotFoundResponse, TooManyRequestsResponse, UnauthorizedResponse, ValidationErrorResponse } from "../Errors.js"
import { CallRequest, CallResponse, TestCallRequest, TestCallResponse } from "./Call.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiKeyAuthentication, Authentication } from "../Authentication.js"
import { AttemptId } from "../Ids.js"
import { idFromString } from "../Params.js"

/**
 * Single calls: `X-API-Key` is required (no login tokens), as in the reference implementation. The
 * plain routes run the agent's published version; the `/test/` routes run its latest draft (or the
 * published version when there is no draft), with the agent's template variables as defaults.
 */
export class CallsApi extends HttpApiGroup.make("calls").annotate(OpenApi.Description, "Calls placed through an agent's public triggers")
  .add(
    HttpApiEndpoint.post("byWorkflowUuid", "/public/agent/workflow/:workflow_uuid").annotate(OpenApi.Summary, "Place a call with an agent, by its UUID").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse)
      .setPath(Schema.Struct({ workflow_uuid: Schema.String }))
      .setPayload(CallRequest)
      .addSuccess(CallResponse)
  )
  .add(
    HttpApiEndpoint.post("testByWorkflowUuid", "/public/agent/test/workflow/:workflow_uuid").annotate(OpenApi.Summary, "Place a test call with an agent's draft, by its UUID").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse)
      .setPath(Schema.Struct({ workflow_uuid: Schema.String }))
      .setPayload(CallRequest)
      .addSuccess(CallResponse)
  )
  .add(
    HttpApiEndpoint.post("testByTriggerPath", "/public/agent/test/:uuid").annotate(OpenApi.Summary, "Place a test call through an API trigger").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse)
      .setPath(Schema.Struct({ uuid: Schema.String }))
      .setPayload(CallRequest)
      .addSuccess(CallResponse)
  )
  .add(
    HttpApiEndpoint.post("byTriggerPath", "/public/agent/:uuid").annotate(OpenApi.Summary, "Place a call through an API trigger").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse)
      .setPath(Schema.Struct({ uuid: Schema.String }))
      .setPayload(CallRequest)
      .addSuccess(CallResponse)
  )
  .middleware(ApiKeyAuthentication)
{}

/** A test call of an agent by id: a login session (the dashboard) or an API key. */
export class TestCallsApi extends HttpApiGroup.make("testCalls").annotate(OpenApi.Description, "Test calls from the dashboard")
  .add(HttpApiEndpoint.post("initiate", "/telephony/initiate-call").annotate(OpenApi.Summary, "Place a test call from the dashboard").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse).setPayload(TestCallRequest).addSuccess(TestCallResponse))
  .middleware(Authentication)
{}

/** Provider-facing status callbacks; the provider's signature is the credential. */
export class TelephonyCallbacksApi extends HttpApiGroup.make("telephonyCallbacks").annotate(OpenApi.Description, "Call status callbacks from telephony providers")
  .add(
    HttpApiEndpoint.post("callback", "/telephony/callbacks/:provider/:attempt_id").annotate(OpenApi.Summary, "Receive a telephony provider's call callback").addError(UnauthorizedResponse).addError(NotFoundResponse).addError(ValidationErrorResponse)
      .setPath(Schema.Struct({ provider: Schema.String, attempt_id: idFromString(AttemptId) }))
      .addSuccess(Schema.Struct({ ok: Schema.Boolean, events: Schema.Int }))
  )
{}
