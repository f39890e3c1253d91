/**
 * The agent's versions, newest first: each is what one save kept (a draft until it is published);
 * earlier ones are kept (archived) and never change, so a run's version always names what it ran. A
 * version's definition can be looked at, and restored as a new draft (then published from the page's
 * Publish button).
 */
import type { Workflow, WorkflowVersion } from "@agentline/api/workflows/Workflow"
import { WorkflowId } from "@agentline/api/Ids"
import { Either } from "effect"
import { useState } from "react"
import { client } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { Badge, formatDate, Loading } from "./ui.js"

const summary = (version: WorkflowVersion) => {
  const nodes = Array.isArray(version.workflow_definition.nodes) ? version.workflow_definition.nodes.length : 0
  const edges = Array.isArray(version.workflow_definition.edges) ? version.workflow_definition.edges.length : 0
  return `${nodes} node${nodes === 1 ? "" : "s"}, ${edges} edge${edges === 1 ? "" : "s"}`
}

export const Versions = ({ onSaved, workflow }: { readonly workflow: Workflow; readonly onSaved: (message: string) => void }) => {
  const id = WorkflowId.make(workflow.id)
  const versions = useApi(() => client.workflows.versions({ path: { workflow_id: id } }), [id, workflow.current_definition_id, workflow.version_number])
  const [open, setOpen] = useState<number | null>(null)
  const restore = useAction((version: WorkflowVersion) =>
    client.workflows.update({
      path: { workflow_id: id },
      payload: {
        workflow_definition: version.workflow_definition,
        template_context_variables: version.template_context_variables,
        workflow_configurations: version.workflow_configurations
      }
    })
  )
  if (versions.data === undefined) return versions.error !== undefined ? <ApiError error={versions.error} /> : <Loading what="versions" />
  const sorted = [...versions.data].sort((a, b) => b.version_number - a.version_number)
  return (
    <section aria-labelledby="versions-heading">
      <h2 id="versions-heading">Versions</h2>
      <ApiError error={restore.error} title="Not restored" />
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th scope="col">Version</th>
              <th scope="col">Status</th>
              <th scope="col">Saved</th>
              <th scope="col">Published</th>
              <th scope="col">Content</th>
              <th scope="col"><span className="visually-hidden">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {sorted.map((version) => (
              <tr key={version.id}>
                <td data-label="Version">{version.version_number}</td>
                <td data-label="Status">
                  <Badge tone={version.status === "published" ? "good" : version.status === "draft" ? "warn" : "neutral"}>{version.status}</Badge>
                </td>
                <td data-label="Saved">{formatDate(version.created_at)}</td>
                <td data-label="Published">{formatDate(version.published_at)}</td>
                <td data-label="Content">
                  {summary(version)}
                  {open === version.id && <pre className="json" tabIndex={0}>{JSON.stringify(version.workflow_definition, null, 2)}</pre>}
                </td>
                <td data-label="Actions">
                  <div className="actions">
                    <button type="button" aria-expanded={open === version.id} onClick={() => setOpen(open === version.id ? null : version.id)}>
                      {open === version.id ? "Hide" : "Show"} version {version.version_number}
                    </button>
                    {version.status === "archived" && (
                      <button
                        type="button"
                        disabled={restore.pending}
                        onClick={async () => {
                          const result = await restore.run(version)
                          if (Either.isRight(result)) {
                            onSaved(`Version ${version.version_number} restored as draft version ${result.right.version_number ?? "?"}: publish it to make campaigns run it.`)
                          }
                        }}
                      >
                        Restore version {version.version_number} as a draft
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}
