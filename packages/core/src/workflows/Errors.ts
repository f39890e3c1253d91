/** What can go wrong with agents (workflows). */
import { ValidationIssue } from "@agentline/api/Errors"
import { Schema } from "effect"

export class WorkflowNotFound extends Schema.TaggedError<WorkflowNotFound>()("WorkflowNotFound", { workflowId: Schema.Number }) {
  override get message() {
    return `Workflow with id ${this.workflowId} not found`
  }
}

/** Trigger paths are unique across all agents of all organizations. */
export class TriggerPathTaken extends Schema.TaggedError<TriggerPathTaken>()("TriggerPathTaken", { triggerPath: Schema.String }) {
  override get message() {
    return `trigger_path '${this.triggerPath}' is already used by another agent; trigger paths are unique across all agents`
  }
}

/** An archived agent takes no calls until it is restored (status `active`). */
export class AgentArchived extends Schema.TaggedError<AgentArchived>()("AgentArchived", { workflowId: Schema.Number }) {
  override get message() {
    return `Agent ${this.workflowId} is archived and cannot be called; restore it by setting its status to active`
  }
}

/** Every structural problem of an agent definition, each as a validation item. */
export class InvalidWorkflowDefinition extends Schema.TaggedError<InvalidWorkflowDefinition>()("InvalidWorkflowDefinition", {
  issues: Schema.Array(ValidationIssue)
}) {
  override get message() {
    return `The agent definition is invalid: ${this.issues.map((issue) => issue.msg).join("; ")}`
  }
}

/** Publishing needs a draft: the agent's latest version is its published one. */
export class NoDraftToPublish extends Schema.TaggedError<NoDraftToPublish>()("NoDraftToPublish", { workflowId: Schema.Number }) {
  override get message() {
    return `No draft to publish: the latest version of agent ${this.workflowId} is already the published one; save a change or create a draft first`
  }
}

/**
 * The definition fails the checks a published version must pass (at publish, or asked with validate):
 * every problem in the reference's `{kind, id, field, message}` shape.
 */
export class DefinitionNotPublishable extends Schema.TaggedError<DefinitionNotPublishable>()("DefinitionNotPublishable", {
  workflowId: Schema.Number,
  problems: Schema.Array(Schema.Struct({
    kind: Schema.Literal("node", "edge", "workflow"),
    id: Schema.NullOr(Schema.String),
    field: Schema.NullOr(Schema.String),
    message: Schema.String
  }))
}) {
  override get message() {
    return `The definition of agent ${this.workflowId} cannot be published: ${this.problems.map((p) => p.message).join("; ")}`
  }
}

/** A newer save replaced the draft while it was being published: nothing was published. */
export class DraftReplaced extends Schema.TaggedError<DraftReplaced>()("DraftReplaced", { workflowId: Schema.Number }) {
  override get message() {
    return `A newer save replaced the draft of agent ${this.workflowId} while it was being published; nothing was published. Publish again to publish the newest draft`
  }
}

export class TemplateNotFound extends Schema.TaggedError<TemplateNotFound>()("TemplateNotFound", { templateId: Schema.Number }) {
  override get message() {
    return `Template with id ${this.templateId} not found`
  }
}
