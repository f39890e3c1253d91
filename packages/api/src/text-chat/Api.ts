import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { ServiceUnavailableResponse } from "../Errors.js"
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
  .add(HttpApiEndpoint.post("create", base).setPath(WorkflowPath).setPayload(CreateTextChatSessionRequest).addSuccess(WorkflowRunTextSessionResponse))
  .add(HttpApiEndpoint.get("get", `${base}/:run_id`).setPath(SessionPath).addSuccess(WorkflowRunTextSessionResponse))
  .add(
    HttpApiEndpoint.post("append", `${base}/:run_id/messages`).setPath(SessionPath).setPayload(AppendTextChatMessageRequest)
      .addSuccess(WorkflowRunTextSessionResponse)
  )
  .add(HttpApiEndpoint.post("end", `${base}/:run_id/end`).setPath(SessionPath).setPayload(EndTextChatSessionRequest).addSuccess(WorkflowRunTextSessionResponse))
  .add(
    HttpApiEndpoint.post("rewind", `${base}/:run_id/rewind`).setPath(SessionPath).setPayload(RewindTextChatSessionRequest)
      .addSuccess(WorkflowRunTextSessionResponse)
  )
  .addError(ServiceUnavailableResponse)
  .middleware(Authentication)
{}

const TokenPath = Schema.Struct({ session_token: Schema.String })

/** The chat widget's conversation, by the session token of `/public/embed/init` (no other credential). */
export class PublicEmbedChatApi extends HttpApiGroup.make("publicEmbedChat")
  .add(HttpApiEndpoint.get("get", "/public/embed/chat/:session_token").setPath(TokenPath).addSuccess(PublicEmbedChatSessionResponse))
  .add(
    HttpApiEndpoint.post("message", "/public/embed/chat/:session_token/messages").setPath(TokenPath).setPayload(PublicEmbedChatMessageRequest)
      .addSuccess(PublicEmbedChatSessionResponse)
  )
  .add(
    HttpApiEndpoint.post("end", "/public/embed/chat/:session_token/end").setPath(TokenPath).setPayload(PublicEmbedChatEndRequest)
      .addSuccess(PublicEmbedChatSessionResponse)
  )
  .addError(ServiceUnavailableResponse)
{}
