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
