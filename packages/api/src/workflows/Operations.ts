/**
 * Operators' routes over agents (the reference's shapes): counts, a summary list, duplicates, built-in
 * templates, and a CSV report of an agent's runs (docs/reports.md).
 */
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { ConflictResponse, NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { WorkflowId } from "../Ids.js"
import { idFromString } from "../Params.js"
import { IsoInstant } from "../runs/RunSearch.js"
import { Workflow, WorkflowStatus } from "./Workflow.js"

export const WorkflowCount = Schema.Struct({ total: Schema.Int, active: Schema.Int, archived: Schema.Int })
export const WorkflowSummary = Schema.Struct({ id: WorkflowId, name: Schema.String })

export const WorkflowTemplate = Schema.Struct({
  id: Schema.Int,
  template_name: Schema.String,
  template_description: Schema.String,
  template_json: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  created_at: Schema.String
})
export type WorkflowTemplate = typeof WorkflowTemplate.Type

const Text = (name: string, max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `${name} must not be empty` }),
    Schema.maxLength(max, { message: () => `${name} must be at most ${max} characters` })
  )

export const CreateFromTemplateRequest = Schema.Struct({
  call_type: Schema.Literal("inbound", "outbound"),
  use_case: Text("use_case", 500),
  activity_description: Text("activity_description", 2000)
})
export type CreateFromTemplateRequest = typeof CreateFromTemplateRequest.Type

export const DuplicateTemplateRequest = Schema.Struct({
  template_id: Schema.Int,
  workflow_name: Text("workflow_name", 255)
})

export const DateRangeParams = Schema.Struct({ start_date: Schema.optional(IsoInstant), end_date: Schema.optional(IsoInstant) })

const WorkflowPath = Schema.Struct({ workflow_id: idFromString(WorkflowId) })

export class WorkflowOperationsApi extends HttpApiGroup.make("workflowOperations")
  .add(
    HttpApiEndpoint.get("count", "/workflow/count").addSuccess(WorkflowCount)
      .annotate(OpenApi.Summary, "Count the organization's agents by status")
  )
  .add(
    HttpApiEndpoint.get("summary", "/workflow/summary")
      .setUrlParams(Schema.Struct({ status: Schema.optional(WorkflowStatus) }))
      .addSuccess(Schema.Array(WorkflowSummary))
      .annotate(OpenApi.Summary, "List agents' ids and names")
  )
  .add(
    HttpApiEndpoint.post("duplicate", "/workflow/:workflow_id/duplicate").setPath(WorkflowPath).addSuccess(Workflow).addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse)
      .annotate(OpenApi.Summary, "Duplicate an agent")
      .annotate(OpenApi.Description, "A new agent named \"<name> (copy)\" with the source's latest content as its version 1 and new trigger paths.")
  )
  .add(
    HttpApiEndpoint.get("report", "/workflow/:workflow_id/report").setPath(WorkflowPath).setUrlParams(DateRangeParams).addError(NotFoundResponse)
      .addSuccess(HttpApiSchema.Text({ contentType: "text/csv" }))
      .annotate(OpenApi.Summary, "Download an agent's runs as CSV")
      .annotate(OpenApi.Description, "Every run of the agent created within the range (inclusive), newest first, streamed.")
  )
  .add(
    HttpApiEndpoint.get("templates", "/workflow/templates").addSuccess(Schema.Array(WorkflowTemplate))
      .annotate(OpenApi.Summary, "List the built-in agent templates")
  )
  .add(
    HttpApiEndpoint.post("createFromTemplate", "/workflow/create/template").setPayload(CreateFromTemplateRequest).addSuccess(Workflow).addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse)
      .annotate(OpenApi.Summary, "Create an agent from the template that fits a description")
      .annotate(OpenApi.Description, "Chooses the built-in template by call type and the keywords of the use case and activity (no LLM).")
  )
  .add(
    HttpApiEndpoint.post("duplicateTemplate", "/workflow/templates/duplicate").setPayload(DuplicateTemplateRequest).addSuccess(Workflow).addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse)
      .annotate(OpenApi.Summary, "Create an agent from a template")
  )
  .middleware(Authentication)
{}
