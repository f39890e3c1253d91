/**
 * Agents (workflows) as the API shows them, and their versions.
 *
 * Versioning model: every change of the definition, the template context variables or the
 * configurations publishes a new version at once; earlier versions are kept (status `archived`) and
 * never change, so a run's `definition_id` always names exactly what it ran. There is no separate
 * draft/publish step. A name change is not a new version.
 */
import { DefinitionId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const WorkflowStatus = Schema.Literal("active", "archived")
export type WorkflowStatus = typeof WorkflowStatus.Type

export const VersionStatus = Schema.Literal("published", "archived")

export const Workflow = Schema.Struct({
  id: WorkflowId,
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Schema.String,
  workflow_definition: JsonObject,
  current_definition_id: Schema.NullOr(DefinitionId),
  template_context_variables: Schema.NullOr(JsonObject),
  call_disposition_codes: Schema.NullOr(JsonObject),
  total_runs: Schema.NullOr(Schema.Int),
  workflow_configurations: Schema.NullOr(JsonObject),
  version_number: Schema.NullOr(Schema.Int),
  version_status: Schema.NullOr(Schema.String),
  workflow_uuid: Schema.NullOr(Schema.String)
})
export type Workflow = typeof Workflow.Type

export const WorkflowListItem = Schema.Struct({
  id: WorkflowId,
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Schema.String,
  total_runs: Schema.Int,
  workflow_uuid: Schema.String
})
export type WorkflowListItem = typeof WorkflowListItem.Type

export const WorkflowVersion = Schema.Struct({
  id: DefinitionId,
  version_number: Schema.Int,
  status: VersionStatus,
  created_at: Schema.String,
  workflow_definition: JsonObject,
  template_context_variables: Schema.NullOr(JsonObject),
  workflow_configurations: Schema.NullOr(JsonObject)
})
export type WorkflowVersion = typeof WorkflowVersion.Type

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(255, { message: () => "name must be at most 255 characters" })
)

export const CreateWorkflowRequest = Schema.Struct({
  name: Name,
  workflow_definition: JsonObject,
  template_context_variables: Schema.optional(Schema.NullOr(JsonObject)),
  workflow_configurations: Schema.optional(Schema.NullOr(JsonObject))
})
export type CreateWorkflowRequest = typeof CreateWorkflowRequest.Type

export const UpdateWorkflowRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  workflow_definition: Schema.optional(Schema.NullOr(JsonObject)),
  template_context_variables: Schema.optional(Schema.NullOr(JsonObject)),
  workflow_configurations: Schema.optional(Schema.NullOr(JsonObject))
})
export type UpdateWorkflowRequest = typeof UpdateWorkflowRequest.Type

export const SetStatusRequest = Schema.Struct({ status: WorkflowStatus })

export const ListWorkflowsParams = Schema.Struct({
  status: Schema.optional(
    Schema.String.pipe(
      Schema.filter((s) => s.split(",").every((p) => p.trim() === "active" || p.trim() === "archived"), {
        arbitrary: () => (fc) => fc.constantFrom("active", "archived", "active,archived"),
        message: () => "status must be active, archived, or active,archived"
      })
    )
  )
})
