import { Runs } from "@agentline/core/runs/Runs"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"
import { chooseRange, contentRange } from "./ByteRanges.js"

/**
 * Run artifacts behind their signed links, as files should be served to players: `Content-Length`,
 * `Accept-Ranges: bytes`, a `Range` answered with 206 and `Content-Range` (416 when it cannot be met),
 * and HEAD (the router answers it with the GET route; the server sends the headers only).
 */
export const PublicDownloadsLive = HttpApiBuilder.group(AgentlineApi, "publicDownloads", (handlers) =>
  Effect.gen(function*() {
    const runs = yield* Runs
    return handlers.handleRaw("download", ({ path }) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { contentType, read, size } = yield* wire(runs.download(path.token, path.artifact))
        const choice = chooseRange({ range: request.headers["range"], ifRange: request.headers["if-range"] }, size)
        const headers = {
          "accept-ranges": "bytes",
          "content-disposition": `attachment; filename="${path.artifact}${contentType.startsWith("audio") ? ".wav" : ".txt"}"`,
          ...(choice._tag === "Whole" ? {} : { "content-range": contentRange(choice, size)! })
        }
        switch (choice._tag) {
          case "Unsatisfiable":
            return HttpServerResponse.empty({ status: 416, headers })
          case "Part": {
            const length = choice.end - choice.start + 1
            const content = yield* wire(read({ offset: choice.start, length }))
            return HttpServerResponse.stream(content, { status: 206, contentType, headers: { ...headers, "content-length": String(length) } })
          }
          case "Whole":
            return HttpServerResponse.stream(yield* wire(read()), { contentType, headers: { ...headers, "content-length": String(size) } })
        }
      }))
  }))
