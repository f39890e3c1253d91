import { Clock, Effect, Option } from "effect"
import { BlobStore, type ByteRange } from "../blobs/BlobStore.js"
import type { Principal } from "@agentline/api/Authentication"
import { PublicUrls } from "../PublicUrls.js"
import * as PublicLinksModule from "./PublicLinks.js"
import { PublicLinks } from "./PublicLinks.js"
import { PublicLinkInvalid, RunArtifactMissing, RunNotFound } from "./Errors.js"
import type { StoredRun } from "./Run.js"
import type { Artifact, Run, RunsPage } from "@agentline/api/runs/Run"
import { RunsRepo } from "./RunsRepo.js"

const CONTENT_TYPES: Record<Artifact, string> = {
  transcript: "text/plain; charset=utf-8",
  recording: "audio/wav",
  user_recording: "audio/wav",
  bot_recording: "audio/wav"
}

export class Runs extends Effect.Service<Runs>()("@agentline/core/Runs", {
  effect: Effect.gen(function*() {
    const repo = yield* RunsRepo
    const links = yield* PublicLinks
    const urls = yield* PublicUrls
    const blobs = yield* BlobStore

    /** The API view: links are minted per read, only for artifacts the run has. */
    const present = (run: StoredRun, now: number): Run => {
      const has = Object.values(run.artifacts).some((k) => k !== null)
      const token = has ? PublicLinksModule.sign(links, run.id, now) : null
      const link = (artifact: Artifact) =>
        token !== null && run.artifacts[artifact] !== null ? urls.runArtifact({ token, artifact }) : null
      return {
        id: run.id,
        workflow_id: run.workflow_id,
        name: run.name,
        mode: run.mode,
        created_at: run.created_at,
        is_completed: run.is_completed,
        transcript_url: link("transcript"),
        recording_url: link("recording"),
        user_recording_url: link("user_recording"),
        bot_recording_url: link("bot_recording"),
        transcript_public_url: link("transcript"),
        recording_public_url: link("recording"),
        user_recording_public_url: link("user_recording"),
        bot_recording_public_url: link("bot_recording"),
        public_access_token: token,
        cost_info: run.cost_info,
        usage_info: run.usage_info,
        definition_id: run.definition_id,
        call_type: run.call_type,
        initial_context: run.initial_context,
        gathered_context: run.gathered_context,
        logs: run.logs,
        annotations: run.annotations
      }
    }

    const page = Effect.fn("Runs.page")(function*(
      principal: Principal,
      filter: { readonly workflowId: number } | { readonly campaignId: number },
      pageNumber: number,
      limit: number
    ) {
      const { runs, total } = yield* repo.list(principal.organizationId, filter, { offset: (pageNumber - 1) * limit, limit })
      const now = yield* Clock.currentTimeMillis
      return {
        runs: runs.map((r) => present(r, now)),
        total_count: total,
        page: pageNumber,
        limit,
        total_pages: Math.ceil(total / limit)
      } satisfies RunsPage
    })

    /** A run of the given agent; another agent's or organization's run is 404. */
    const get = Effect.fn("Runs.get")(function*(principal: Principal, workflowId: number, runId: number) {
      const run = yield* repo.find(principal.organizationId, runId)
      if (Option.isNone(run) || run.value.workflow_id !== workflowId) {
        return yield* new RunNotFound({ runId })
      }
      return present(run.value, yield* Clock.currentTimeMillis)
    })

    /**
     * Resolves a public link; any invalid, expired or dangling link is the same 404. The artifact's size
     * comes first, so the HTTP layer can answer a byte range (or refuse it) before reading: `read` gives
     * the whole file or `range` of it.
     */
    const download = Effect.fn("Runs.download")(function*(token: string, artifact: Artifact) {
      const invalid = new PublicLinkInvalid()
      const runId = PublicLinksModule.verify(links, token, yield* Clock.currentTimeMillis)
      if (runId === undefined) return yield* invalid
      const run = yield* repo.findById(runId)
      if (Option.isNone(run)) return yield* invalid
      const key = run.value.artifacts[artifact]
      if (key === null) return yield* new RunArtifactMissing({ runId, artifact })
      const missing = () => new RunArtifactMissing({ runId, artifact })
      const { size } = yield* blobs.head(key).pipe(Effect.catchTag("BlobNotFound", missing))
      const read = (range?: ByteRange) => blobs.stream(key, range).pipe(Effect.catchTag("BlobNotFound", missing))
      return { size, read, contentType: CONTENT_TYPES[artifact] }
    })

    return { page, get, download, present, insert: repo.insert, update: repo.update, findById: repo.findById } as const
  })
}) {}
