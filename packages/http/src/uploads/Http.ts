import { BadRequest } from "@agentline/core/Errors"
import { CurrentPrincipal } from "@agentline/core/organizations/Principal"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Stream } from "effect"
import { AgentlineApi } from "../Api.js"

export const UploadsLive = HttpApiBuilder.group(AgentlineApi, "uploads", (handlers) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    return handlers
      .handle("presign", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => uploads.presign(p, payload)))
      .handle("presignS3", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => uploads.presign(p, payload)))
  }))

export const UploadTargetLive = HttpApiBuilder.group(AgentlineApi, "uploadTarget", (handlers) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    // Raw: the payload is not decoded, so the body is streamed to the blob store chunk by chunk, never buffered.
    return handlers.handleRaw("upload", ({ path, request, urlParams }) =>
      uploads.receive(
        `${path.organization}/contacts/${path.file}`,
        urlParams.expires,
        urlParams.signature,
        request.headers["content-type"],
        request.stream.pipe(
          Stream.mapError((error) => new BadRequest({ detail: `The upload body could not be read (${error.reason}); send it again` }))
        )
      ))
  }))
