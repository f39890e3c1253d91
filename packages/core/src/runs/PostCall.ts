/**
 * A run's post-call work: the `run.ended` event and the agent's `webhook` nodes. It runs once, when the
 * call has ended (the dispatcher closes the run) AND its media session has finished (the voice runtime
 * has written the transcript, recordings and what it gathered), whichever comes last; a session that
 * never reports its end (a crash) is given up on after a while (`WebhookDelivery`'s sweep). So the
 * event and the nodes' payloads carry the conversation's results, not just the call's outcome.
 *
 * `complete` is called inside the transaction of the write that may be the last (the run's close, the
 * media session's end): the run is claimed (`post_call_at`) and its events written with that write.
 */
import { OrganizationId } from "@agentline/api/Ids"
import { Clock, Effect, Option } from "effect"
import * as Crypto from "node:crypto"
import { PublicUrls } from "../PublicUrls.js"
import { iso } from "../Time.js"
import { Transactor } from "../Transactor.js"
import { runEndedData } from "../webhooks/WebhookEvents.js"
import { type NodeRequest, webhookNodeRequests } from "../webhooks/WebhookNodes.js"
import { type OutboxEventInput, WebhookOutbox } from "../webhooks/WebhookOutbox.js"
import { WebhooksRepo } from "../webhooks/WebhooksRepo.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import * as PublicLinksModule from "./PublicLinks.js"
import { PublicLinks } from "./PublicLinks.js"
import type { StoredRun } from "./Run.js"
import { RunsRepo } from "./RunsRepo.js"

export class PostCall extends Effect.Service<PostCall>()("@agentline/core/PostCall", {
  effect: Effect.gen(function*() {
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const outbox = yield* WebhookOutbox
    const webhooks = yield* WebhooksRepo
    const tx = yield* Transactor
    const links = yield* PublicLinks
    const urls = yield* PublicUrls

    // Versions are immutable: a definition's webhook nodes are read once per process (most have none).
    const nodesOf = new Map<number, unknown>()

    /** The agent version's webhook nodes for this run, rendered. */
    const nodeRequests = (run: StoredRun, context: Record<string, unknown>) =>
      Effect.gen(function*() {
        let nodes = run.definition_id === null ? undefined : nodesOf.get(run.definition_id)
        if (nodes === undefined) {
          const versions = yield* workflows.versions(run.organization_id, run.workflow_id)
          const version = versions.find((v) => v.id === run.definition_id) ?? versions.at(-1)
          const all = version?.workflow_definition.nodes
          nodes = Array.isArray(all) ? all.filter((n) => typeof n === "object" && n !== null && (n as { type?: unknown }).type === "webhook") : []
          if (run.definition_id !== null) {
            if (nodesOf.size >= 1000) nodesOf.clear()
            nodesOf.set(run.definition_id, nodes)
          }
        }
        return (nodes as ReadonlyArray<unknown>).length === 0 ? [] : webhookNodeRequests({ nodes }, context)
      })

    const work = (run: StoredRun, at: number) =>
      Effect.gen(function*() {
        const token = PublicLinksModule.sign(links, run.id, at)
        const link = (artifact: "transcript" | "recording") =>
          run.artifacts[artifact] === null ? null : urls.runArtifact({ token, artifact })
        const runLink = urls.run({ workflowId: run.workflow_id, runId: run.id })
        const ended: OutboxEventInput = {
          organizationId: OrganizationId.make(run.organization_id),
          type: "run.ended",
          orderingKey: `run:${run.id}`,
          at: iso(at),
          data: runEndedData(run, { run: runLink, artifact: link })
        }
        // The reference's variables for `payload_template`, URLs and headers.
        const context: Record<string, unknown> = {
          workflow_run_id: run.id,
          workflow_id: run.workflow_id,
          campaign_id: run.campaign_id,
          run_name: run.name,
          provider: run.mode,
          call_type: run.call_type,
          initial_context: run.initial_context ?? {},
          gathered_context: run.gathered_context ?? {},
          cost_info: run.cost_info ?? {},
          usage_info: run.usage_info ?? {},
          annotations: run.annotations ?? {},
          recording_url: link("recording") ?? "",
          transcript_url: link("transcript") ?? "",
          run_url: runLink
        }
        const requests: ReadonlyArray<NodeRequest> = yield* nodeRequests(run, context)
        for (const request of requests) {
          if (request._tag === "Skipped") {
            yield* runs.update(run.id, {
              merge: { logs: { [`webhook_node:${request.nodeId}`]: { node_name: request.nodeName, status: "skipped", reason: request.reason } } }
            }, iso(at))
            continue
          }
          yield* webhooks.enqueueDirect({
            organization_id: OrganizationId.make(run.organization_id),
            run_id: run.id,
            message_id: `msg_${Crypto.randomUUID().replaceAll("-", "")}`,
            ordering_key: `run:${run.id}:node:${request.target.node_id}`,
            target: request.target,
            payload: request.body,
            now: iso(at)
          })
        }
        // Written by the caller, with the other runs' events.
        return ended
      })

    /**
     * Runs the post-call work of `runId` if its time has come and nobody ran it yet; `force` skips
     * waiting for a media session that never ended. Joins the caller's transaction.
     */
    const complete = (runId: number, options: { readonly force?: boolean } = {}) =>
      tx.withTransaction(Effect.gen(function*() {
        const at = yield* Clock.currentTimeMillis
        const claimed = yield* runs.claimPostCall(runId, iso(at), options.force ?? false)
        if (Option.isNone(claimed)) return false
        yield* outbox.emit(yield* work(claimed.value, at))
        return true
      })).pipe(Effect.withSpan("PostCall.complete", { attributes: { runId } }))

    /** `complete` for the runs of calls that ended together: one claim and one outbox write for all. */
    const completeAll = (runIds: ReadonlyArray<number>) =>
      tx.withTransaction(Effect.gen(function*() {
        if (runIds.length === 0) return
        const at = yield* Clock.currentTimeMillis
        const claimed = yield* runs.claimPostCalls(runIds, iso(at))
        yield* outbox.emitAll(yield* Effect.forEach(claimed, (run) => work(run, at)))
      }))

    /** A media session started on the run: its post-call work waits for the session's end. */
    const mediaStarted = (runId: number) =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => runs.markMedia(runId, "started", iso(at)))

    /** The media session ended (its writes are done): the post-call work may be due now. */
    const mediaEnded = (runId: number) =>
      tx.withTransaction(Effect.gen(function*() {
        yield* runs.markMedia(runId, "ended", iso(yield* Clock.currentTimeMillis))
        return yield* complete(runId)
      }))

    return { complete, completeAll, mediaStarted, mediaEnded } as const
  })
}) {}
