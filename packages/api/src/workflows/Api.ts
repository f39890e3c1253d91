import { Run, RunsPage } from "../runs/Run.js"
import {
  CreateWorkflowRequest,
  ListWorkflowsParams,
  PublishedVersion,
  SetStatusRequest,
  UpdateWorkflowRequest,
  ValidationResult,
  Workflow,
  WorkflowListItem,
  WorkflowVersion
} from "./Workflow.js"
import { BadRequestResponse, ConflictResponse, DefinitionRejectedResponse, NotFoundResponse, ValidationErrorResponse } from "../Errors.js"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { RunId, WorkflowId } from "../Ids.js"
import { idFromString, PageParams } from "../Params.js"
import { NodeSpec, NodeTypesResponse } from "./NodeSpec.js"

const WorkflowPath = Schema.Struct({ workflow_id: idFromString(WorkflowId) })

export class WorkflowsApi extends HttpApiGroup.make("workflows").annotate(OpenApi.Description, "Agents (workflows): their definitions, versions and runs")
  .add(HttpApiEndpoint.post("create", "/workflow/create/definition").annotate(OpenApi.Summary, "Create an agent").addError(ConflictResponse).addError(ValidationErrorResponse).setPayload(CreateWorkflowRequest).addSuccess(Workflow))
  .add(HttpApiEndpoint.get("list", "/workflow/fetch").annotate(OpenApi.Summary, "List agents").setUrlParams(ListWorkflowsParams).addSuccess(Schema.Array(WorkflowListItem)))
  .add(HttpApiEndpoint.get("get", "/workflow/fetch/:workflow_id").annotate(OpenApi.Summary, "Get an agent").addError(NotFoundResponse).setPath(WorkflowPath).addSuccess(Workflow))
  .add(HttpApiEndpoint.put("update", "/workflow/:workflow_id").annotate(OpenApi.Summary, "Save a change to an agent's draft").addError(NotFoundResponse).addError(ConflictResponse).addError(ValidationErrorResponse).setPath(WorkflowPath).setPayload(UpdateWorkflowRequest).addSuccess(Workflow))
  .add(
    HttpApiEndpoint.put("setStatus", "/workflow/:workflow_id/status").annotate(OpenApi.Summary, "Archive or restore an agent").addError(NotFoundResponse).setPath(WorkflowPath).setPayload(SetStatusRequest)
      .addSuccess(Workflow)
  )
  .add(HttpApiEndpoint.get("versions", "/workflow/:workflow_id/versions").annotate(OpenApi.Summary, "List an agent's versions").addError(NotFoundResponse).setPath(WorkflowPath).addSuccess(Schema.Array(WorkflowVersion)))
  .add(
    HttpApiEndpoint.post("publish", "/workflow/:workflow_id/publish").annotate(OpenApi.Summary, "Publish an agent's draft").addError(BadRequestResponse).addError(NotFoundResponse).addError(ConflictResponse).setPath(WorkflowPath).addSuccess(PublishedVersion)
      .addError(DefinitionRejectedResponse)
  )
  .add(HttpApiEndpoint.post("createDraft", "/workflow/:workflow_id/create-draft").annotate(OpenApi.Summary, "Start a draft from the published version").addError(NotFoundResponse).setPath(WorkflowPath).addSuccess(WorkflowVersion))
  .add(
    HttpApiEndpoint.post("validate", "/workflow/:workflow_id/validate").annotate(OpenApi.Summary, "Check an agent's definition").addError(NotFoundResponse).setPath(WorkflowPath).addSuccess(ValidationResult)
      .addError(DefinitionRejectedResponse)
  )
  .add(HttpApiEndpoint.get("runs", "/workflow/:workflow_id/runs").annotate(OpenApi.Summary, "List an agent's runs").addError(NotFoundResponse).setPath(WorkflowPath).setUrlParams(PageParams).addSuccess(RunsPage))
  .add(
    HttpApiEndpoint.get("run", "/workflow/:workflow_id/runs/:run_id").annotate(OpenApi.Summary, "Get one run of an agent").addError(NotFoundResponse)
      .setPath(Schema.Struct({ workflow_id: idFromString(WorkflowId), run_id: idFromString(RunId) }))
      .addSuccess(Run)
  )
  .middleware(Authentication)
{}

/**
 * The node-type catalog (the reference's routes and shapes): every node type an agent definition may
 * hold, with the fields of its `data`. What it says is what a save accepts (`NodeTypes.ts`).
 */
export class NodeTypesApi extends HttpApiGroup.make("nodeTypes").annotate(OpenApi.Description, "The node types an agent definition may hold")
  .add(
    HttpApiEndpoint.get("list", "/node-types").annotate(OpenApi.Summary, "List the node types").addSuccess(NodeTypesResponse).annotate(
      OpenApi.Description,
      "Every node type with its spec; `spec_version` is the catalog's contract version."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/node-types/:name").annotate(OpenApi.Summary, "Get a node type's spec").addError(NotFoundResponse).setPath(Schema.Struct({ name: Schema.String })).addSuccess(NodeSpec).annotate(
      OpenApi.Description,
      "One node type's spec; an unknown name is a 404 that lists the known ones."
    )
  )
  .middleware(Authentication)
{}
