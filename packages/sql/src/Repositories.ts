/**
 * Every storage port of `@agentline/core` implemented over `SqlClient`, as one layer.
 * Provide it with a client (`Database.layerConfig`, `Database.layerPg`, `Database.layerSqlite`).
 */
import { Layer } from "effect"
import * as SqlApiKeysRepo from "./api-keys/SqlApiKeysRepo.js"
import * as SqlOrganizationsRepo from "./organizations/SqlOrganizationsRepo.js"
import * as SqlRunsRepo from "./runs/SqlRunsRepo.js"
import * as SqlUsersRepo from "./users/SqlUsersRepo.js"
import * as SqlWorkflowsRepo from "./workflows/SqlWorkflowsRepo.js"

export const layer = Layer.mergeAll(
  SqlOrganizationsRepo.layer,
  SqlUsersRepo.layer,
  SqlApiKeysRepo.layer,
  SqlWorkflowsRepo.layer,
  SqlRunsRepo.layer
)
