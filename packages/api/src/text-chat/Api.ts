import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { ConflictResponse, ForbiddenResponse, NotFoundResponse, ServiceUnavailableResponse, TooManyRequestsResponse, ValidationErrorResponse } from "../Errors.js"
import { RunId, WorkflowId } from "../Ids.js"
import { idFromString } from "../Params.js"
import {
  AppendTextChatMessageRequest,
  CreateTextChatSessionRequest,
  EndTextChatSessionRequest,
  PublicEmbedChatEndRequest,
  PublicEmbedChatMessageRequest,
  PublicEmbedChatSessionResponse,
  RewindTextChatSessionRequest,
  WorkflowRunTextSessionResponse
} from "./TextChat.js"

const WorkflowPath = Schema.Struct({ workflow_id: idFromString(WorkflowId) })
const SessionPath = Schema.Struct({ workflow_id: idFromString(WorkflowId), run_id: idFromString(RunId) })
const base = "/workflow/:workflow_id/text-chat/sessions"

/** Text chat with an agent's latest version (its draft when it has one), by the organization. */
export class TextChatApi extends HttpApiGroup.make("textChat")
  .add(HttpApiEndpoint.post("create", base).annotate(OpenApi.Summary, "Start a text chat with an agent's latest version").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(WorkflowPath).setPayload(CreateTextChatSessionRequest).addSuccess(WorkflowRunTextSessionResponse))
  .add(HttpApiEndpoint.get("get", `${base}/:run_id`).annotate(OpenApi.Summary, "Get a text chat session").addError(NotFoundResponse).setPath(SessionPath).addSuccess(WorkflowRunTextSessionResponse))
  .add(
    HttpApiEndpoint.post("append", `${base}/:run_id/messages`).annotate(OpenApi.Summary, "Send a message in a text chat").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(SessionPath).setPayload(AppendTextChatMessageRequest)
      .addSuccess(WorkflowRunTextSessionResponse)
  )
  .add(HttpApiEndpoint.post("end", `${base}/:run_id/end`).annotate(OpenApi.Summary, "End a text chat session").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(SessionPath).setPayload(EndTextChatSessionRequest).addSuccess(WorkflowRunTextSessionResponse))
  .add(
    HttpApiEndpoint.post("rewind", `${base}/:run_id/rewind`).annotate(OpenApi.Summary, "Rewind a text chat to an earlier turn").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(SessionPath).setPayload(RewindTextChatSessionRequest)
      .addSuccess(WorkflowRunTextSessionResponse)
  )
  .middleware(Authentication)
{}

const TokenPath = Schema.Struct({ session_token: Schema.String })

/** The chat widget's conversation, by the session token of `/public/embed/init` (no other credential). */
export class PublicEmbedChatApi extends HttpApiGroup.make("publicEmbedChat")
  .add(HttpApiEndpoint.get("get", "/public/embed/chat/:session_token").annotate(OpenApi.Summary, "Get an embedded chat's conversation").addError(ForbiddenResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(TokenPath).addSuccess(PublicEmbedChatSessionResponse))
  .add(
    HttpApiEndpoint.post("message", "/public/embed/chat/:session_token/messages").annotate(OpenApi.Summary, "Send a visitor's message in an embedded chat").addError(ForbiddenResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(TokenPath).setPayload(PublicEmbedChatMessageRequest)
      .addSuccess(PublicEmbedChatSessionResponse)
  )
  .add(
    HttpApiEndpoint.post("end", "/public/embed/chat/:session_token/end").annotate(OpenApi.Summary, "End an embedded chat").addError(ForbiddenResponse).addError(NotFoundResponse).addError(ConflictResponse).addError(TooManyRequestsResponse).addError(ValidationErrorResponse).addError(ServiceUnavailableResponse).setPath(TokenPath).setPayload(PublicEmbedChatEndRequest)
      .addSuccess(PublicEmbedChatSessionResponse)
  )
{}
