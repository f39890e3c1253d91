import { AgentlineApi } from "@agentline/api/Api"
import { CurrentPrincipal } from "@agentline/api/Authentication"
import { Recordings } from "@agentline/core/recordings/Recordings"
import { FileSystem, HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { wire } from "../DomainErrors.js"

export const RecordingsLive = HttpApiBuilder.group(AgentlineApi, "recordings", (handlers) =>
  Effect.gen(function*() {
    const recordings = yield* Recordings
    const fs = yield* FileSystem.FileSystem
    return handlers
      .handle("uploadUrls", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(recordings.uploadUrls(p, payload))))
      .handle("create", ({ payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(recordings.create(p, payload))))
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => wire(recordings.list(p, urlParams))))
      .handle("update", ({ path, payload }) => Effect.flatMap(CurrentPrincipal, (p) => wire(recordings.update(p, path.id, payload))))
      .handle("delete", ({ path }) => Effect.flatMap(CurrentPrincipal, (p) => wire(recordings.remove(p, path.recording_id))))
      .handle("transcribe", ({ payload }) =>
        Effect.gen(function*() {
          // The multipart file is persisted (bounded by the route's body limit) in the request's scope.
          const bytes = yield* Effect.orDie(fs.readFile(payload.file.path))
          return yield* wire(recordings.transcribe(bytes, payload.language))
        }))
  }))

