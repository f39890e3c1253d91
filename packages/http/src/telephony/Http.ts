import { authorize } from "@agentline/core/organizations/Permissions"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const TelephonyConfigsLive = HttpApiBuilder.group(AgentlineApi, "telephonyConfigs", (handlers) =>
  Effect.gen(function*() {
    const configs = yield* TelephonyConfigs
    // Reading is open to members (a campaign names the configuration it calls from); changing is not.
    const manage = authorize("manageTelephony")
    return handlers
      .handle("metadata", () => configs.metadata)
      .handle("list", () => wire(Effect.flatMap(CurrentPrincipal, configs.list)))
      .handle("create", ({ payload }) => wire(Effect.flatMap(manage, (p) => configs.create(p, payload))))
      .handle("get", ({ path }) => wire(Effect.flatMap(CurrentPrincipal, (p) => configs.get(p, path.config_id))))
      .handle("update", ({ path, payload }) => wire(Effect.flatMap(manage, (p) => configs.update(p, path.config_id, payload))))
      .handle("setDefaultOutbound", ({ path }) => wire(Effect.flatMap(manage, (p) => configs.setDefaultOutbound(p, path.config_id))))
      .handle("delete", ({ path }) => wire(Effect.flatMap(manage, (p) => configs.delete(p, path.config_id))))
  }))
