/**
 * Which tools an agent's steps may list (`tool_uuids`, `mcp_tool_filters`): checked when a definition
 * is saved or published. The organization's tools, which sit above the agents (a tool renders the
 * agents' templates and names their transitions), implement it (`tools/NodeTools.ts`'s `layer`).
 */
import { Context, type Effect } from "effect"
import type { DefinitionIssue } from "./DefinitionValidation.js"
import type { WorkflowDefinition } from "./WorkflowDefinition.js"

export class ListedTools extends Context.Tag("@agentline/core/ListedTools")<
  ListedTools,
  {
    /** Every problem with the tools `definition`'s nodes list, each with its node and field. */
    readonly problems: (organizationId: number, definition: WorkflowDefinition) => Effect.Effect<ReadonlyArray<DefinitionIssue>>
  }
>() {}
