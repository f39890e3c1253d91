import { CurrentPrincipal } from "@agentline/api/Authentication"
import { AgentlineApi } from "@agentline/api/Api"
import { Embeds, type Visitor } from "@agentline/core/embed/Embeds"
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Effect } from "effect"
import * as ClientAddress from "../auth/ClientAddress.js"
import { wire } from "../DomainErrors.js"
import { ServerConfig } from "../ServerConfig.js"

export const EmbedTokensLive = HttpApiBuilder.group(AgentlineApi, "embedTokens", (handlers) =>
  Effect.gen(function*() {
    const embeds = yield* Embeds
    return handlers
      .handle("save", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(embeds.saveToken(p, path.workflow_id, payload))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(embeds.tokenFor(p, path.workflow_id))))
      .handle("revoke", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(embeds.revoke(p, path.workflow_id))))
  }))

/**
 * The page a request comes from: its `Origin` header, which browsers set on every cross-origin
 * request; else the origin of its `Referer` (some browsers omit `Origin` on same-origin GETs).
 */
export const requestOrigin = (headers: Readonly<Record<string, string | undefined>>): string | undefined => {
  const origin = headers["origin"]
  if (origin !== undefined && origin !== "") return origin
  const referer = headers["referer"]
  if (referer === undefined || referer === "") return undefined
  try {
    const url = new URL(referer)
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined
  } catch {
    return undefined
  }
}

export const PublicEmbedLive = HttpApiBuilder.group(AgentlineApi, "publicEmbed", (handlers) =>
  Effect.gen(function*() {
    const embeds = yield* Embeds
    const config = yield* ServerConfig
    const clientAddress = ClientAddress.ofRequest(config.trustedProxyHops ?? 0)
    const visitor = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      return {
        origin: requestOrigin(request.headers),
        address: yield* clientAddress,
        userAgent: request.headers["user-agent"]
      } satisfies Visitor
    })
    return handlers
      .handle("init", ({ payload }) => Effect.flatMap(visitor, (v) => wire(embeds.init(payload, v))))
      .handle("config", ({ path }) => Effect.flatMap(visitor, (v) => wire(embeds.config(path.token, v))))
  }))
