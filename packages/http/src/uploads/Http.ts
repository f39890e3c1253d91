import { CurrentPrincipal } from "@agentline/api/Authentication"
import { UploadBodyUnreadable } from "@agentline/core/uploads/Errors"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { HttpApiBuilder, type HttpServerRequest } from "@effect/platform"
import { Effect, Stream } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../DomainErrors.js"
import { declaredLength } from "../RequestLimits.js"

/** Absent means chunked; a malformed length never gets here (Node's parser refuses it). */
const knownLength = (length: number | undefined) => (length !== undefined && Number.isFinite(length) ? length : undefined)

export const UploadsLive = HttpApiBuilder.group(AgentlineApi, "uploads", (handlers) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    return handlers
      .handle("presign", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(uploads.presign(p, payload))))
      .handle("presignS3", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(uploads.presign(p, payload))))
  }))

export const UploadTargetLive = HttpApiBuilder.group(AgentlineApi, "uploadTarget", (handlers) =>
  Effect.gen(function*() {
    const uploads = yield* Uploads
    // Raw: the payload is not decoded, so the body is streamed to the blob store chunk by chunk, never buffered.
    const receive = (folder: "contacts" | "recordings") =>
    ({ path, request, urlParams }: {
      readonly path: { readonly organization: string; readonly file: string }
      readonly request: HttpServerRequest.HttpServerRequest
      readonly urlParams: { readonly expires: string; readonly signature: string }
    }) =>
      wire(uploads.receive(
        `${path.organization}/${folder}/${path.file}`,
        urlParams.expires,
        urlParams.signature,
        request.headers["content-type"],
        request.stream.pipe(
          Stream.mapError((error) => new UploadBodyUnreadable({ reason: error.reason }))
        ),
        knownLength(declaredLength(request.headers["content-length"]))
      ))
    return handlers.handleRaw("upload", receive("contacts")).handleRaw("uploadRecording", receive("recordings"))
  }))
