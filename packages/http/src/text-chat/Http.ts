import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { EmbedChat } from "@agentline/voice/text-chat/EmbedChat"
import { TextChat } from "@agentline/voice/text-chat/TextChat"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import * as ClientAddress from "../auth/ClientAddress.js"
import { wire } from "../DomainErrors.js"
import { requestOrigin } from "../embed/Http.js"
import { ServerConfig } from "../ServerConfig.js"

export const TextChatLive = HttpApiBuilder.group(AgentlineApi, "textChat", (handlers) =>
  Effect.gen(function*() {
    const chat = yield* TextChat
    return handlers
      .handle("create", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(chat.create(p, path.workflow_id, payload))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(chat.get(p, path.workflow_id, path.run_id))))
      .handle("append", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(chat.append(p, path.workflow_id, path.run_id, payload))))
      .handle("end", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(chat.end(p, path.workflow_id, path.run_id, payload))))
      .handle("rewind", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(chat.rewind(p, path.workflow_id, path.run_id, payload))))
  }))

export const PublicEmbedChatLive = HttpApiBuilder.group(AgentlineApi, "publicEmbedChat", (handlers) =>
  Effect.gen(function*() {
    const chat = yield* EmbedChat
    const config = yield* ServerConfig
    const clientAddress = ClientAddress.ofRequest(config.trustedProxyHops ?? 0)
    const visitor = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return { origin: requestOrigin(request.headers), address: yield* clientAddress }
    })
    return handlers
      .handle("get", ({ path }) => Effect.flatMap(visitor, (v) => wire(chat.get(path.session_token, v))))
      .handle("message", ({ path, payload }) => Effect.flatMap(visitor, (v) => wire(chat.message(path.session_token, v, payload))))
      .handle("end", ({ path, payload }) => Effect.flatMap(visitor, (v) => wire(chat.end(path.session_token, v, payload))))
  }))
