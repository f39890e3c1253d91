import { CurrentPrincipal } from "@agentline/api/Authentication"
import { AgentlineApi } from "@agentline/api/Api"
import { RunSearch } from "@agentline/core/runs/RunSearch"
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"

/** A CSV download, streamed: no Content-Length (chunked), so a million rows never sit in memory. */
export const csvResponse = (filename: string, body: Parameters<typeof HttpServerResponse.stream>[0]) =>
  HttpServerResponse.stream(body, {
    contentType: "text/csv; charset=utf-8",
    headers: { "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" }
  })

export const RunsLive = HttpApiBuilder.group(AgentlineApi, "runs", (handlers) =>
  Effect.gen(function*() {
    const search = yield* RunSearch
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(search.list(p.organizationId, urlParams))))
      .handleRaw("export", ({ urlParams }) =>
        Effect.map(CurrentPrincipal, (p) => csvResponse("runs.csv", search.csv(p.organizationId, urlParams))))
  }))
