import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { VoiceReadiness } from "../voice/VoiceReadiness.js"

export const ConfigurationsLive = HttpApiBuilder.group(AgentlineApi, "configurations", (handlers) =>
  Effect.gen(function*() {
    const { problems } = yield* VoiceReadiness
    const status = problems.map((problem) => ({ model: problem.service, message: problem.message }))
    return handlers.handle("validate", () => Effect.succeed({ status }))
  }))
