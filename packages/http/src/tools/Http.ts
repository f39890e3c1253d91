import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { Tools } from "@agentline/core/tools/Tools"
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"

export const ToolsLive = HttpApiBuilder.group(AgentlineApi, "tools", (handlers) =>
  Effect.gen(function*() {
    const tools = yield* Tools
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.list(p, urlParams))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.create(p, payload))))
      .handle("get", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.get(p, path.tool_uuid))))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.update(p, path.tool_uuid, payload))))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.archive(p, path.tool_uuid))))
      .handle("unarchive", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.unarchive(p, path.tool_uuid))))
      .handle("test", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.test(p, path.tool_uuid, payload))))
      .handle("refreshMcp", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(tools.refreshMcp(p, path.tool_uuid))))
  }))
