import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "../Api.js"

export const TelephonyConfigsLive = HttpApiBuilder.group(AgentlineApi, "telephonyConfigs", (handlers) =>
  Effect.gen(function*() {
    const configs = yield* TelephonyConfigs
    return handlers
      .handle("metadata", () => configs.metadata)
      .handle("list", () => Effect.flatMap(CurrentPrincipal, configs.list))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => configs.create(p, payload)))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => configs.get(p, path.config_id)))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => configs.update(p, path.config_id, payload)))
      .handle("setDefaultOutbound", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => configs.setDefaultOutbound(p, path.config_id)))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => configs.delete(p, path.config_id)))
  }))
