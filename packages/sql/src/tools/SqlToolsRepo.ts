import { ToolCategory, ToolDefinition, ToolStatus } from "@agentline/api/tools/Tools"
import { type StoredTool, ToolsRepo } from "@agentline/core/tools/ToolsRepo"
import { SqlClient, type Statement } from "@effect/sql"
import { Effect, Layer, Option, Schema } from "effect"
import * as Columns from "../Columns.js"

const ToolRow = Schema.Struct({
  id: Columns.Int,
  tool_uuid: Schema.String,
  organization_id: Columns.Int,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  category: ToolCategory,
  icon: Schema.NullOr(Schema.String),
  icon_color: Schema.NullOr(Schema.String),
  status: ToolStatus,
  definition: Columns.Json(ToolDefinition),
  creator_id: Schema.NullOr(Columns.Int),
  creator_email: Schema.NullOr(Schema.String),
  created_at: Columns.Ts,
  updated_at: Schema.NullOr(Columns.Ts)
})

const toStored = ({ creator_email, creator_id, ...row }: typeof ToolRow.Type): StoredTool => ({
  ...row,
  created_by: creator_id === null || creator_email === null ? null : { id: creator_id, provider_id: creator_email }
})
const rows = Columns.decodeRows(ToolRow)
const stored = (found: ReadonlyArray<unknown>) => Effect.map(rows(found), (decoded) => decoded.map(toStored))
const encodeDefinition = Schema.encodeSync(ToolDefinition)

export const layer = Layer.effect(
  ToolsRepo,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    /** Tools with their creator, narrowed by `where`. */
    const select = (where: Statement.Fragment) =>
      sql`SELECT t.id, t.tool_uuid, t.organization_id, t.name, t.description, t.category, t.icon, t.icon_color, t.status,
                 t.definition, t.created_at, t.updated_at, u.id AS creator_id, u.email AS creator_email
          FROM tools t LEFT JOIN users u ON u.id = t.created_by
          WHERE ${where}
          ORDER BY t.created_at, t.id`.pipe(Effect.flatMap(stored), Effect.orDie)
    const one = (organizationId: number, toolUuid: string) =>
      Effect.map(select(sql`t.organization_id = ${organizationId} AND t.tool_uuid = ${toolUuid}`), (found) => found[0])
    return ToolsRepo.of({
      insert: (tool) =>
        sql`INSERT INTO tools ${
          sql.insert({ ...tool, status: "active", definition: Columns.jsonParam(encodeDefinition(tool.definition)) })
        }`.pipe(
          Effect.zipRight(one(tool.organization_id, tool.tool_uuid)),
          Effect.flatMap((found) => found === undefined ? Effect.dieMessage("the inserted tool was not found") : Effect.succeed(found)),
          Effect.orDie
        ),
      list: (organizationId, filter) =>
        select(sql`t.organization_id = ${organizationId}
          ${filter.status !== undefined ? sql`AND t.status = ${filter.status}` : sql``}
          ${filter.category !== undefined ? sql`AND t.category = ${filter.category}` : sql``}`),
      find: (organizationId, toolUuid) => Effect.map(one(organizationId, toolUuid), Option.fromNullable),
      findMany: (organizationId, toolUuids) =>
        toolUuids.length === 0 ? Effect.succeed([]) : select(sql`t.organization_id = ${organizationId} AND ${sql.in("t.tool_uuid", toolUuids)}`),
      update: (organizationId, toolUuid, patch, now) => {
        const { definition, ...rest } = patch
        return sql`UPDATE tools SET ${
          sql.update({
            ...rest,
            ...(definition !== undefined ? { definition: Columns.jsonParam(encodeDefinition(definition)) } : {}),
            updated_at: now
          })
        } WHERE organization_id = ${organizationId} AND tool_uuid = ${toolUuid}`.pipe(
          Effect.zipRight(one(organizationId, toolUuid)),
          Effect.map(Option.fromNullable),
          Effect.orDie
        )
      }
    })
  })
)
