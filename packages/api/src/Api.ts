/**
 * The Agentline HTTP API (`/api/v1`), as one `HttpApi` value. Import it to get a typed client:
 * `HttpApiClient.make(AgentlineApi, { baseUrl })` (see `examples/typed-client.ts`).
 */
import * as OpenApiDocument from "./OpenApiDocument.js"
import { HttpApi, OpenApi } from "@effect/platform"
import { ApiKeysApi } from "./api-keys/Api.js"
import { CallsApi, TelephonyCallbacksApi, TestCallsApi } from "./calls/Api.js"
import { ConfigurationsApi } from "./configurations/Api.js"
import { CampaignsApi, PublicCampaignSourceApi } from "./campaigns/Api.js"
import { WebhooksApi } from "./webhooks/Api.js"
import { CredentialsApi } from "./credentials/Api.js"
import { ToolsApi } from "./tools/Api.js"
import { RecordingsApi } from "./recordings/Api.js"
import { DoNotCallApi } from "./do-not-call/Api.js"
import { EmbedTokensApi, PublicEmbedApi } from "./embed/Api.js"
import { PublicEmbedChatApi, TextChatApi } from "./text-chat/Api.js"
import { PhoneNumbersApi } from "./phone-numbers/Api.js"
import { WebCallsApi } from "./web-calls/Api.js"
import { TelephonyConfigsApi } from "./telephony/Api.js"
import { AuthApi } from "./auth/Api.js"
import { HealthApi } from "./health/Api.js"
import { OrganizationsApi } from "./organizations/Api.js"
import { ReportsApi } from "./organizations/Reports.js"
import { PublicDownloadsApi, RunsApi } from "./runs/Api.js"
import { UploadsApi, UploadTargetApi } from "./uploads/Api.js"
import { UsersApi } from "./users/Api.js"
import { NodeTypesApi, WorkflowsApi } from "./workflows/Api.js"
import { WorkflowOperationsApi } from "./workflows/Operations.js"

/**
 * Each endpoint declares the errors its handler can fail with (the handlers are checked against them),
 * its authentication middleware those of its credentials, and the document adds the answers every
 * request can get before its handler runs (`OpenApiDocument.ts`).
 */
export class AgentlineApi extends HttpApi.make("agentline")
  .add(HealthApi)
  .add(AuthApi)
  .add(UsersApi)
  .add(ApiKeysApi)
  .add(ConfigurationsApi)
  .add(OrganizationsApi)
  .add(ReportsApi)
  .add(WorkflowOperationsApi)
  .add(WorkflowsApi)
  .add(NodeTypesApi)
  .add(PublicDownloadsApi)
  .add(RunsApi)
  .add(TelephonyConfigsApi)
  .add(PhoneNumbersApi)
  .add(CampaignsApi)
  .add(PublicCampaignSourceApi)
  .add(CallsApi)
  .add(TestCallsApi)
  .add(DoNotCallApi)
  .add(WebhooksApi)
  .add(CredentialsApi)
  .add(ToolsApi)
  .add(RecordingsApi)
  .add(EmbedTokensApi)
  .add(PublicEmbedApi)
  .add(TextChatApi)
  .add(PublicEmbedChatApi)
  .add(WebCallsApi)
  .add(TelephonyCallbacksApi)
  .add(UploadsApi)
  .add(UploadTargetApi)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Agentline API")
  .annotate(OpenApi.Description, "Self-hosted AI voice agents over telephone calls. Errors are {\"detail\": ...}.")
  .annotate(OpenApi.License, { name: "MIT", url: "https://opensource.org/licenses/MIT" })
  .annotate(OpenApi.Servers, [{ url: "/", description: "The server that serves this document" }])
  .annotate(OpenApi.Transform, OpenApiDocument.correct)
{}
