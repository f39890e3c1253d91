/**
 * Every storage port of `@agentline/core` implemented over `SqlClient`, as one layer.
 * Provide it with a client (`Database.layerConfig`, `Database.layerPg`, `Database.layerSqlite`).
 */
import { Layer } from "effect"
import * as SqlApiKeysRepo from "./api-keys/SqlApiKeysRepo.js"
import * as SqlCampaignReports from "./campaigns/SqlCampaignReports.js"
import * as SqlCampaignsRepo from "./campaigns/SqlCampaignsRepo.js"
import * as SqlDispatchRepo from "./dispatcher/SqlDispatchRepo.js"
import * as SqlDoNotCallRepo from "./do-not-call/SqlDoNotCallRepo.js"
import * as SqlEmbedRepo from "./embed/SqlEmbedRepo.js"
import * as SqlMediaTokensRepo from "./media/SqlMediaTokensRepo.js"
import * as SqlOrganizationsRepo from "./organizations/SqlOrganizationsRepo.js"
import * as SqlPhoneNumbersRepo from "./phone-numbers/SqlPhoneNumbersRepo.js"
import * as SqlRunReports from "./runs/SqlRunReports.js"
import * as SqlRunsRepo from "./runs/SqlRunsRepo.js"
import * as SqlConnectionLeasesRepo from "./telephony/SqlConnectionLeasesRepo.js"
import * as SqlTelephonyConfigsRepo from "./telephony/SqlTelephonyConfigsRepo.js"
import * as Transactor from "./Transactor.js"
import * as SqlUploadsRepo from "./uploads/SqlUploadsRepo.js"
import * as SqlUsersRepo from "./users/SqlUsersRepo.js"
import * as SqlWebhooksRepo from "./webhooks/SqlWebhooksRepo.js"
import * as SqlCredentialsRepo from "./credentials/SqlCredentialsRepo.js"
import * as SqlRecordingsRepo from "./recordings/SqlRecordingsRepo.js"
import * as SqlToolsRepo from "./tools/SqlToolsRepo.js"
import * as SqlTransfersRepo from "./transfers/SqlTransfersRepo.js"
import * as SqlTextChatRepo from "./text-chat/SqlTextChatRepo.js"
import * as SqlWebCallTokensRepo from "./web-calls/SqlWebCallTokensRepo.js"
import * as SqlWorkflowsRepo from "./workflows/SqlWorkflowsRepo.js"

export const layer = Layer.mergeAll(
  SqlOrganizationsRepo.layer,
  SqlUsersRepo.layer,
  SqlApiKeysRepo.layer,
  SqlWorkflowsRepo.layer,
  SqlRunsRepo.layer,
  SqlRunReports.layer,
  SqlDispatchRepo.layer,
  SqlTelephonyConfigsRepo.layer,
  SqlConnectionLeasesRepo.layer,
  SqlPhoneNumbersRepo.layer,
  SqlCampaignsRepo.layer,
  SqlCampaignReports.layer,
  SqlUploadsRepo.layer,
  SqlMediaTokensRepo.layer,
  SqlDoNotCallRepo.layer,
  SqlWebhooksRepo.layer,
  SqlCredentialsRepo.layer,
  SqlRecordingsRepo.layer,
  SqlEmbedRepo.layer,
  SqlToolsRepo.layer,
  SqlTransfersRepo.layer,
  SqlTextChatRepo.layer,
  SqlWebCallTokensRepo.layer,
  Transactor.layer
)
