/**
 * Draft or published, and publishing: which version the agent page shows (its draft when it has one),
 * the version the next campaign call runs (the published one), and the button that publishes the draft.
 * A save of the editor or the settings makes a draft; only publishing changes what campaigns, API
 * triggers, inbound calls and the embed run. Test calls run the draft.
 */
import type { Workflow } from "@agentline/api/workflows/Workflow"
import { WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { Badge, formatDate } from "./ui.js"

export const PublishPanel = ({ editing, onPublished, workflow }: {
  readonly workflow: Workflow
  /** The editor has unsaved changes: publishing now would not include them. */
  readonly editing: boolean
  readonly onPublished: (message: string) => void
}) => {
  const id = WorkflowId.make(workflow.id)
  const versions = useApi(() => client.workflows.versions({ path: { workflow_id: id } }), [id, workflow.current_definition_id, workflow.version_number])
  const publish = useAction(() => client.workflows.publish({ path: { workflow_id: id } }))
  const published = versions.data?.find((v) => v.id === workflow.current_definition_id)
  const isDraft = workflow.version_status === "draft"
  const run = async () => {
    const result = await publish.run()
    if (Either.isRight(result)) onPublished(`Version ${result.right.version_number} published: the next campaign call runs it.`)
  }
  return (
    <div className="publish-panel" role="group" aria-label="Publishing">
      <p data-testid="version-state">
        Version {workflow.version_number ?? "?"} <Badge tone={isDraft ? "warn" : "good"}>{isDraft ? "draft" : "published"}</Badge>
      </p>
      <p data-testid="next-call-version">
        {published === undefined
          ? "Looking up the published version…"
          : `The next campaign call runs version ${published.version_number} (published ${formatDate(published.published_at)}).`}
      </p>
      {isDraft && (
        <p className="hint">
          Test calls run this draft. Campaigns, API triggers, inbound calls and the website widget run the published version until you publish.
        </p>
      )}
      <div className="actions">
        <button type="button" className="primary" onClick={run} disabled={!isDraft || editing || publish.pending}>
          {publish.pending ? "Publishing…" : isDraft ? `Publish version ${workflow.version_number ?? "?"}` : "Published"}
        </button>
      </div>
      {isDraft && editing && <p className="hint">Save or discard the editor's changes first: publishing takes the saved draft.</p>}
      <ApiError error={publish.error} title="Not published" />
    </div>
  )
}
