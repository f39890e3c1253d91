import { Runs } from "@agentline/core/runs/Runs"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"

export const PublicDownloadsLive = HttpApiBuilder.group(AgentlineApi, "publicDownloads", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* Runs
    return handlers.handleRaw("download", ({ path }) =>
      Effect.map(wire(runs.download(path.token, path.artifact)), ({ content, contentType }) =>
        HttpServerResponse.stream(content, {
          contentType,
          headers: { "content-disposition": `attachment; filename="${path.artifact}${contentType.startsWith("audio") ? ".wav" : ".txt"}"` }
        })))
  }))
