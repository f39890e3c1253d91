import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { ServerConfig } from "../ServerConfig.js"

export const HealthLive = HttpApiBuilder.group(AgentlineApi, "health", (handlers) =>
  Effect.gen(function*() {
    const config = yield* ServerConfig
    return handlers.handle("health", () =>
      Effect.succeed({
        status: "ok",
        version: config.version,
        backend_api_endpoint: config.publicUrl,
        deployment_mode: "oss",
        auth_provider: "local"
      }))
  }))
