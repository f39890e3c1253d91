import type { ToolCategory, ToolDefinition, ToolStatus } from "@agentline/api/tools/Tools"
import { Context, type Effect, type Option } from "effect"

/** A tool as stored, with who created it (the user's id and email, when the user still exists). */
export interface StoredTool {
  readonly id: number
  readonly tool_uuid: string
  readonly organization_id: number
  readonly name: string
  readonly description: string | null
  readonly category: ToolCategory
  readonly icon: string | null
  readonly icon_color: string | null
  readonly status: ToolStatus
  readonly definition: ToolDefinition
  readonly created_by: { readonly id: number; readonly provider_id: string } | null
  readonly created_at: string
  readonly updated_at: string | null
}

/** A tool to store: active, by the user who created it. */
export type NewTool = Omit<StoredTool, "id" | "status" | "created_by" | "updated_at"> & { readonly created_by: number }

export type ToolPatch = Partial<Pick<StoredTool, "name" | "description" | "icon" | "icon_color" | "status" | "definition">>

/** Storage port for an organization's tools. */
export class ToolsRepo extends Context.Tag("@agentline/core/ToolsRepo")<ToolsRepo, {
  readonly insert: (tool: NewTool) => Effect.Effect<StoredTool>
  /** Oldest first; `status`/`category` narrow the list when given. */
  readonly list: (organizationId: number, filter: { readonly status?: string | undefined; readonly category?: string | undefined }) => Effect.Effect<ReadonlyArray<StoredTool>>
  readonly find: (organizationId: number, toolUuid: string) => Effect.Effect<Option.Option<StoredTool>>
  /** The tools of the organization among `toolUuids` (any status), in no particular order. */
  readonly findMany: (organizationId: number, toolUuids: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<StoredTool>>
  readonly update: (organizationId: number, toolUuid: string, patch: ToolPatch, now: string) => Effect.Effect<Option.Option<StoredTool>>
}>() {}
