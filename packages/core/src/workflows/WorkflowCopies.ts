import type { Principal } from "@agentline/api/Authentication"
import type { CreateFromTemplateRequest } from "@agentline/api/workflows/Operations"
import type { WorkflowStatus } from "@agentline/api/workflows/Workflow"
import { Effect } from "effect"
import { asWire, BUILT_IN_TEMPLATES, chooseTemplate } from "./BuiltInTemplates.js"
import { TemplateNotFound } from "./Errors.js"
import { Workflows } from "./Workflows.js"

/** A definition without its trigger paths: saving it mints new ones (trigger paths belong to one agent for good). */
export const withoutTriggerPaths = (definition: Record<string, unknown>): Record<string, unknown> => {
  const nodes = definition["nodes"]
  if (!Array.isArray(nodes)) return definition
  return {
    ...definition,
    nodes: nodes.map((node: unknown) => {
      if (typeof node !== "object" || node === null || !("data" in node) || typeof node.data !== "object" || node.data === null) return node
      if (!("type" in node) || node.type !== "trigger") return node
      const { trigger_path: _dropped, ...data } = node.data as Record<string, unknown>
      return { ...node, data }
    })
  }
}

/** Operators' views and copies of agents: counts, a summary, duplicates, agents made from built-in templates. */
export class WorkflowCopies extends Effect.Service<WorkflowCopies>()("@agentline/core/WorkflowCopies", {
  effect: Effect.gen(function*() {
    const workflows = yield* Workflows

    const count = Effect.fn("WorkflowCopies.count")(function*(principal: Principal) {
      const all = yield* workflows.list(principal, "active,archived")
      const active = all.filter((w) => w.status === "active").length
      return { total: all.length, active, archived: all.length - active }
    })

    const summary = Effect.fn("WorkflowCopies.summary")(function*(principal: Principal, status: WorkflowStatus | undefined) {
      const all = yield* workflows.list(principal, status ?? "active,archived")
      return all.map((w) => ({ id: w.id, name: w.name }))
    })

    const duplicate = Effect.fn("WorkflowCopies.duplicate")(function*(principal: Principal, id: number) {
      const source = yield* workflows.get(principal, id)
      return yield* workflows.create(principal, {
        name: `${source.name} (copy)`.slice(0, 255),
        workflow_definition: withoutTriggerPaths(source.workflow_definition),
        template_context_variables: source.template_context_variables,
        workflow_configurations: source.workflow_configurations
      })
    })

    const fromTemplate = (principal: Principal, template: (typeof BUILT_IN_TEMPLATES)[number], name: string) =>
      workflows.create(principal, { name, workflow_definition: template.template_json })

    const duplicateTemplate = Effect.fn("WorkflowCopies.duplicateTemplate")(
      function*(principal: Principal, templateId: number, name: string) {
        const template = BUILT_IN_TEMPLATES.find((t) => t.id === templateId)
        if (template === undefined) return yield* new TemplateNotFound({ templateId })
        return yield* fromTemplate(principal, template, name)
      }
    )

    const createFromTemplate = Effect.fn("WorkflowCopies.createFromTemplate")(
      function*(principal: Principal, request: CreateFromTemplateRequest) {
        const template = chooseTemplate(request.call_type, request.use_case, request.activity_description)
        return yield* fromTemplate(principal, template, request.use_case.slice(0, 255))
      }
    )

    return { count, summary, duplicate, templates: BUILT_IN_TEMPLATES.map(asWire), duplicateTemplate, createFromTemplate }
  })
}) {}
