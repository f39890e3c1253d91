import type { CampaignId, DefinitionId, OrganizationId, RunId, WorkflowId } from "@agentline/api/Ids"
import type { Artifact } from "@agentline/api/runs/Run"

/** A run as stored: artifact blob keys instead of links. */
export interface StoredRun {
  readonly id: RunId
  readonly organization_id: OrganizationId
  readonly workflow_id: WorkflowId
  readonly campaign_id: CampaignId | null
  readonly definition_id: DefinitionId | null
  readonly name: string
  readonly mode: string
  readonly call_type: "inbound" | "outbound"
  readonly is_completed: boolean
  readonly initial_context: Record<string, unknown> | null
  readonly gathered_context: Record<string, unknown> | null
  readonly cost_info: Record<string, unknown> | null
  readonly usage_info: Record<string, unknown> | null
  readonly logs: Record<string, unknown> | null
  readonly annotations: Record<string, unknown> | null
  readonly artifacts: { readonly [A in Artifact]: string | null }
  readonly created_at: string
  readonly updated_at: string
}
