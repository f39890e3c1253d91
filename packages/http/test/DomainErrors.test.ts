/**
 * Every domain error's wire answer, pinned: the status and the exact `detail` the server answered
 * with before domain errors existed (when core built `{detail}` itself), so clients reading the texts
 * see no change. `satisfies` makes this table list every tag, like the mapping it checks.
 */
import { STATUS } from "@agentline/api/Errors"
import {
  EmbedChatRefused,
  TextChatEnded,
  TextChatNotFound,
  TextChatRevisionConflict,
  TextChatUnavailable,
  TextChatUnknownTurn
} from "@agentline/core/text-chat/Errors"
import { ApiKeyNotFound, ApiKeyOwnerDeactivated, ApiKeyOwnerMissing, InvalidApiKey } from "@agentline/core/api-keys/Errors"
import { AgentNotFound, AgentTriggerInactive, InvalidCallback, InvalidCallbackSignature, UnknownCall } from "@agentline/core/calls/Errors"
import { transition } from "@agentline/core/campaigns/CampaignState"
import { CsvInvalid } from "@agentline/core/campaigns/CsvImport"
import {
  CampaignAlreadyRedialed,
  CampaignChangedMeanwhile,
  CampaignImportUnfinished,
  CampaignNotEditable,
  CampaignNotFound,
  NothingToRedial
} from "@agentline/core/campaigns/Errors"
import { CallNotPlaced, ConcurrencyLimitReached } from "@agentline/core/dispatcher/Errors"
import { DoNotCallEntryNotFound, InvalidDoNotCallNumbers, NumberOnDoNotCallList } from "@agentline/core/do-not-call/Errors"
import { CredentialNotFound, InvalidCredentialData } from "@agentline/core/credentials/Errors"
import { InvalidTool, NotAnMcpTool, ToolNotFound } from "@agentline/core/tools/Errors"
import { WebhookDeliveryNotFound, WebhookEndpointNotFound, WebhookTargetRefused } from "@agentline/core/webhooks/Errors"
import { OrganizationNotFound, PermissionDenied } from "@agentline/core/organizations/Errors"
import {
  EmbedAgentUnavailable,
  EmbedOriginRefused,
  EmbedTokenChangedMeanwhile,
  EmbedTokenExpired,
  EmbedTokenInactive,
  EmbedTokenNotFound,
  EmbedUsageLimitReached,
  EmbedVisitorThrottled,
  InvalidEmbedRequest,
  NoActiveEmbedToken
} from "@agentline/core/embed/Errors"
import {
  InboundAgentArchived,
  InboundAgentNotFound,
  InvalidPhoneNumber,
  PhoneAddressImmutable,
  PhoneNumberNotFound,
  PhoneNumberTaken
} from "@agentline/core/phone-numbers/Errors"
import { InvalidRunFilter, InvalidRunsCursor, PublicLinkInvalid, RunArtifactMissing, RunNotFound } from "@agentline/core/runs/Errors"
import {
  InvalidTelephonyConfig,
  NoOutboundRoute,
  TelephonyAccountNumberTaken,
  TelephonyConfigurationInUse,
  TelephonyConfigurationNameTaken,
  TelephonyConfigurationNotFound,
  TelephonyProviderImmutable,
  TelephonyProviderUnavailable
} from "@agentline/core/telephony/Errors"
import {
  UploadBodyTooLarge,
  UploadBodyUnreadable,
  UploadContentTypeRefused,
  UploadNoLongerStored,
  UploadNotFound,
  UploadTooLarge,
  UploadUrlInvalid,
  UploadUrlUsed
} from "@agentline/core/uploads/Errors"
import {
  EmailTaken,
  InvalidCredentials,
  LastAdmin,
  LoginThrottled,
  LogoutNeedsSession,
  OwnAccount,
  PasswordChangeNeedsSession,
  PasswordResetNeedsSession,
  PasswordUnchanged,
  SessionInvalid,
  UserDeactivated,
  UserNoLongerExists,
  UserNotFound,
  WrongCurrentPassword
} from "@agentline/core/users/Errors"
import {
  AgentArchived,
  DefinitionNotPublishable,
  DraftReplaced,
  InvalidWorkflowDefinition,
  NoDraftToPublish,
  TemplateNotFound,
  TriggerPathTaken,
  WorkflowNotFound
} from "@agentline/core/workflows/Errors"
import {
  InvalidRecordings,
  RecordingIdTaken,
  RecordingNotFound,
  SpeechToTextUnavailable,
  UnreadableAudio
} from "@agentline/core/recordings/Errors"
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { type DomainError, toWire } from "../src/DomainErrors.js"

const PRESIGN = "POST /api/v1/storage/presigned-upload-url"
const issue = { loc: ["body", "config", "account_sid"], msg: "Field required", type: "missing", input: null, ctx: {} }
const refused = Either.getLeft(transition("paused", "pause"))
if (refused._tag === "None") throw new Error("pausing a paused campaign must be refused")

type Case = readonly [DomainError, number, unknown]

const CASES = {
  ApiKeyNotFound: [new ApiKeyNotFound({ apiKeyId: 3 }), 404, "API key not found"],
  ApiKeyOwnerMissing: [new ApiKeyOwnerMissing({ apiKeyId: 3 }), 401, "The owner of this API key no longer exists"],
  ApiKeyOwnerDeactivated: [new ApiKeyOwnerDeactivated({ apiKeyId: 3 }), 401, "The user of this API key is deactivated"],
  InvalidApiKey: [new InvalidApiKey(), 401, "Invalid or archived API key"],
  AgentNotFound: [new AgentNotFound({ by: "uuid", value: "u" }), 404, "Agent not found"],
  AgentTriggerInactive: [new AgentTriggerInactive({ triggerPath: "t" }), 404, "Agent trigger is not active"],
  InvalidCallback: [new InvalidCallback({ reason: "no CallStatus" }), 422, [
    { loc: ["body"], msg: "no CallStatus", type: "value_error", input: null, ctx: {} }
  ]],
  InvalidCallbackSignature: [new InvalidCallbackSignature(), 401, "Invalid callback signature"],
  UnknownCall: [new UnknownCall({ attemptId: 9 }), 404, "Unknown call"],
  InvalidTransition: [refused.value, 409, "Cannot pause a campaign in state 'paused': only a running campaign can be paused (it is already paused)"],
  CsvInvalid: [new CsvInvalid({ message: "CSV file must have a header row and at least one contact row" }), 400,
    "CSV file must have a header row and at least one contact row"],
  CampaignAlreadyRedialed: [new CampaignAlreadyRedialed({ campaignId: 1, redialedAs: 2 }), 409,
    "This campaign was already redialed as campaign 2"],
  CampaignChangedMeanwhile: [new CampaignChangedMeanwhile({ campaignId: 1, state: "completed" }), 409,
    "The campaign changed to 'completed' meanwhile; retry if still wanted"],
  CampaignImportUnfinished: [new CampaignImportUnfinished({ campaignId: 1 }), 409,
    "The contacts of this campaign are still being imported, or their import did not finish; if it does not finish, create the campaign again"],
  CampaignNotEditable: [new CampaignNotEditable({ campaignId: 1, state: "running" }), 409,
    "Cannot update a campaign in state 'running': pause it first"],
  CampaignNotFound: [new CampaignNotFound({ campaignId: 1 }), 404, "Campaign not found"],
  NothingToRedial: [new NothingToRedial({ campaignId: 4, outcomes: ["busy", "no_answer"] }), 400,
    "No contacts of campaign 4 ended with busy, no_answer"],
  CallNotPlaced: [new CallNotPlaced({ reason: "provider down" }), 400, "Failed to initiate call: provider down"],
  ConcurrencyLimitReached: [new ConcurrencyLimitReached({ organizationId: 1 }), 429,
    "Concurrent call limit reached: the organization has as many calls in progress as it allows; retry when one ends"],
  OrganizationNotFound: [new OrganizationNotFound({ organizationId: 1 }), 404, "Organization not found"],
  DoNotCallEntryNotFound: [new DoNotCallEntryNotFound({ phoneNumber: "+14155550100" }), 404, "+14155550100 is not on the do-not-call list"],
  InvalidDoNotCallNumbers: [
    new InvalidDoNotCallNumbers({ issues: [{ loc: ["body", "phone_numbers", 1], input: "x", reason: "not a phone number" }] }),
    422,
    [{ loc: ["body", "phone_numbers", 1], msg: "not a phone number", type: "value_error", input: "x", ctx: {} }]
  ],
  CredentialNotFound: [new CredentialNotFound({ uuid: "c-1" }), 404, "Credential c-1 not found in this organization"],
  InvalidCredentialData: [
    new InvalidCredentialData({ issues: [{ field: "token", message: "token is required" }] }),
    422,
    [{ loc: ["body", "credential_data", "token"], msg: "token is required", type: "value_error", input: null, ctx: {} }]
  ],
  ToolNotFound: [new ToolNotFound({ toolUuid: "t-1" }), 404, "Tool t-1 not found in this organization"],
  InvalidTool: [
    new InvalidTool({ issues: [{ loc: ["definition", "config", "url"], message: "url must be an http or https URL", input: "ftp://x" }] }),
    422,
    [{ loc: ["body", "definition", "config", "url"], msg: "url must be an http or https URL", type: "value_error", input: "ftp://x", ctx: {} }]
  ],
  NotAnMcpTool: [new NotAnMcpTool({ toolUuid: "t-1", category: "http_api" }), 400,
    "Tool t-1 is an http_api tool; only mcp tools have a server whose tools can be refreshed"],
  WebhookEndpointNotFound: [new WebhookEndpointNotFound({ endpointId: 7 }), 404, "Webhook endpoint 7 not found in this organization"],
  WebhookDeliveryNotFound: [new WebhookDeliveryNotFound({ deliveryId: 9 }), 404, "Webhook delivery 9 not found for this endpoint"],
  WebhookTargetRefused: [
    new WebhookTargetRefused({ url: "http://10.0.0.1/", reason: "10.0.0.1 is a private, loopback or link-local address" }),
    422,
    [{
      loc: ["body", "url"],
      msg: "10.0.0.1 is a private, loopback or link-local address; webhooks go to public addresses only " +
        "(the operator can allow private ones with AGENTLINE_WEBHOOK_ALLOW_PRIVATE=true)",
      type: "value_error",
      input: "http://10.0.0.1/",
      ctx: {}
    }]
  ],
  NumberOnDoNotCallList: [new NumberOnDoNotCallList({ phoneNumber: "+14155550100" }), 409,
    "+14155550100 is on the organization's do-not-call list; it is not dialed (an administrator can remove it)"],
  PermissionDenied: [new PermissionDenied({ what: "Managing the organization's users", required: "admin", role: "member" }), 403,
    "Managing the organization's users needs the admin role (your role is member); ask an administrator of your organization"],
  InboundAgentArchived: [new InboundAgentArchived({ workflowId: 5 }), 409,
    "Agent 5 is archived; restore it before binding numbers to it"],
  InboundAgentNotFound: [new InboundAgentNotFound({ workflowId: 5 }), 404, "Workflow not found"],
  InvalidPhoneNumber: [new InvalidPhoneNumber({ field: "address", input: "x", reason: "not a phone number" }), 422, [
    { loc: ["body", "address"], msg: "not a phone number", type: "value_error", input: "x", ctx: {} }
  ]],
  PhoneAddressImmutable: [new PhoneAddressImmutable({ phoneNumberId: 1 }), 400,
    "address cannot be changed; delete the number and add it again"],
  PhoneNumberNotFound: [new PhoneNumberNotFound({ phoneNumberId: 1 }), 404, "Phone number not found"],
  PhoneNumberTaken: [new PhoneNumberTaken({ address: "+14155550100", by: "another_organization" }), 409,
    "The phone number +14155550100 is already registered by another organization for the same provider account."],
  PublicLinkInvalid: [new PublicLinkInvalid(), 404, "Invalid or expired link"],
  RunArtifactMissing: [new RunArtifactMissing({ runId: 1, artifact: "user_recording" }), 404, "No user recording available for this run"],
  RunNotFound: [new RunNotFound({ runId: 1 }), 404, "Workflow run not found"],
  InvalidRunFilter: [new InvalidRunFilter(), 400, "Invalid filter format"],
  InvalidRunsCursor: [new InvalidRunsCursor({ reason: "it is not a cursor of this list" }), 400, "Invalid cursor: it is not a cursor of this list; start again without one"],
  InvalidTelephonyConfig: [new InvalidTelephonyConfig({ issues: [issue] }), 422, [issue]],
  NoOutboundRoute: [new NoOutboundRoute({ configurationId: null }), 400,
    "telephony_configuration_not_found: the organization has no default outbound telephony configuration; " +
    "pass telephony_configuration_id or mark one with POST /api/v1/organizations/telephony-configs/{id}/set-default-outbound"],
  TelephonyAccountNumberTaken: [new TelephonyAccountNumberTaken({ address: "+14155550100" }), 409,
    "Phone number +14155550100 of this configuration is already registered under another configuration " +
    "using the same provider account; remove it there first."],
  TelephonyConfigurationInUse: [new TelephonyConfigurationInUse({ configurationId: 7 }), 409,
    "Telephony configuration 7 is referenced by one or more campaigns and cannot be deleted."],
  TelephonyConfigurationNameTaken: [new TelephonyConfigurationNameTaken({ name: "Main" }), 409,
    "A telephony configuration named 'Main' already exists in this organization. Pick a different name."],
  TelephonyConfigurationNotFound: [new TelephonyConfigurationNotFound({ configurationId: 7 }), 404, "Telephony configuration not found"],
  TelephonyProviderImmutable: [new TelephonyProviderImmutable({ provider: "twilio" }), 400,
    "Provider cannot be changed (this configuration uses 'twilio'); create a new configuration instead."],
  TelephonyProviderUnavailable: [new TelephonyProviderUnavailable({ provider: "acme" }), 400,
    "Telephony provider 'acme' is not available in this server"],
  UploadBodyTooLarge: [new UploadBodyTooLarge({ limit: 10, declared: true }), 413,
    "The body is larger than the file_size declared for this upload URL (10 bytes); nothing was stored. " +
    "Request a new URL with the real file_size"],
  UploadBodyUnreadable: [new UploadBodyUnreadable({ reason: "Transport" }), 400,
    "The upload body could not be read (Transport); send it again"],
  UploadContentTypeRefused: [new UploadContentTypeRefused({ contentType: null }), 400,
    "Send the file with the header Content-Type: text/csv (got 'none')"],
  UploadNoLongerStored: [new UploadNoLongerStored({ fileKey: "1/contacts/a.csv" }), 400,
    `The file '1/contacts/a.csv' is no longer stored; upload it again with ${PRESIGN}`],
  UploadNotFound: [new UploadNotFound({ fileKey: "k" }), 400,
    `source_id 'k' is not an uploaded file of this organization; upload it first with ${PRESIGN}`],
  UploadTooLarge: [new UploadTooLarge({ fileSize: 11, maxBytes: 10 }), 413,
    "file_size 11 exceeds the maximum upload size of 10 bytes; split the contacts into smaller files"],
  UploadUrlInvalid: [new UploadUrlInvalid(), 403, `Upload URL signature is invalid or expired; request a new one with ${PRESIGN}`],
  UploadUrlUsed: [new UploadUrlUsed({ fileKey: "k" }), 409,
    "This upload URL has already been used: an upload URL works once, and the file stored with it " +
    `stays as it is. To upload another file, request a new URL with ${PRESIGN}`],
  EmailTaken: [new EmailTaken({ email: "a@b.test" }), 409, "A user with email 'a@b.test' already exists"],
  InvalidCredentials: [new InvalidCredentials(), 401, "Invalid email or password"],
  LoginThrottled: [new LoginThrottled({ retryAfterSeconds: 30 }), 429,
    "Too many failed password attempts for this account or from this address; try again in 30 seconds"],
  LogoutNeedsSession: [new LogoutNeedsSession(), 400,
    "Logging out ends a login session; an API key has none (archive the key with DELETE /api/v1/user/api-keys/{api_key_id} instead)"],
  PasswordChangeNeedsSession: [new PasswordChangeNeedsSession(), 403,
    "Changing a password needs a login session (authorization: Bearer <token> from POST /api/v1/auth/login); " +
    "API keys cannot change passwords"],
  PasswordUnchanged: [new PasswordUnchanged(), 409, "new_password must differ from the current password"],
  SessionInvalid: [new SessionInvalid(), 401, "Invalid or expired token; log in again at POST /api/v1/auth/login"],
  UserNoLongerExists: [new UserNoLongerExists({ userId: 1 }), 401, "The user of these credentials no longer exists"],
  WrongCurrentPassword: [new WrongCurrentPassword(), 403, "current_password is not correct"],
  UserNotFound: [new UserNotFound({ userId: 4 }), 404, "User 4 not found"],
  LastAdmin: [new LastAdmin({ userId: 4, change: "deactivate" }), 409,
    "Cannot deactivate the organization's last active administrator: make another user an administrator first"],
  OwnAccount: [new OwnAccount({ change: "remove" }), 409, "You cannot remove your own account; another administrator can"],
  UserDeactivated: [new UserDeactivated(), 403, "This account is deactivated; an administrator of your organization can reactivate it"],
  PasswordResetNeedsSession: [new PasswordResetNeedsSession(), 403,
    "Resetting a user's password needs a login session (authorization: Bearer <token> from POST /api/v1/auth/login); " +
    "API keys cannot reset passwords"],
  AgentArchived: [new AgentArchived({ workflowId: 8 }), 409,
    "Agent 8 is archived and cannot be called; restore it with PUT /api/v1/workflow/8/status {\"status\": \"active\"}"],
  InvalidWorkflowDefinition: [new InvalidWorkflowDefinition({ issues: [issue] }), 422, [issue]],
  TriggerPathTaken: [new TriggerPathTaken({ triggerPath: "abc" }), 409,
    "trigger_path 'abc' is already used by another agent; trigger paths are unique across all agents"],
  WorkflowNotFound: [new WorkflowNotFound({ workflowId: 8 }), 404, "Workflow with id 8 not found"],
  TemplateNotFound: [new TemplateNotFound({ templateId: 9 }), 404, "Template with id 9 not found"],
  NoDraftToPublish: [new NoDraftToPublish({ workflowId: 8 }), 400,
    "No draft to publish: the latest version of agent 8 is already the published one; save a change with PUT /api/v1/workflow/8 or POST /api/v1/workflow/8/create-draft first"],
  DefinitionNotPublishable: [
    new DefinitionNotPublishable({ workflowId: 8, problems: [{ kind: "node", id: "start", field: "prompt", message: "prompt is required" }] }),
    422,
    { is_valid: false, errors: [{ kind: "node", id: "start", field: "prompt", message: "prompt is required" }] }
  ],
  EmbedAgentUnavailable: [new EmbedAgentUnavailable(), 403, "This agent is not available"],
  EmbedOriginRefused: [new EmbedOriginRefused({ origin: "https://evil.example" }), 403, "Domain not allowed: https://evil.example"],
  EmbedTokenChangedMeanwhile: [new EmbedTokenChangedMeanwhile({ workflowId: 8 }), 409,
    "Another request created the embed token of agent 8 at the same time; send the request again to update it"],
  EmbedTokenExpired: [new EmbedTokenExpired(), 403, "Embed token has expired"],
  EmbedTokenInactive: [new EmbedTokenInactive(), 403, "Embed token is inactive"],
  EmbedTokenNotFound: [new EmbedTokenNotFound(), 404, "Invalid embed token"],
  EmbedUsageLimitReached: [new EmbedUsageLimitReached(), 403, "Embed token usage limit exceeded"],
  EmbedVisitorThrottled: [new EmbedVisitorThrottled({ retryAfterSeconds: 42 }), 429, "Too many requests from this visitor; try again in 42 seconds"],
  InvalidEmbedRequest: [
    new InvalidEmbedRequest({ issues: [{ loc: ["body", "allowed_domains", 0], message: "allowed_domains[0] 'x' is bad", input: "x" }] }),
    422,
    [{ loc: ["body", "allowed_domains", 0], msg: "allowed_domains[0] 'x' is bad", type: "value_error", input: "x", ctx: {} }]
  ],
  NoActiveEmbedToken: [new NoActiveEmbedToken({ workflowId: 8 }), 404, "No active embed token found for this workflow"],
  DraftReplaced: [new DraftReplaced({ workflowId: 8 }), 409,
    "A newer save replaced the draft of agent 8 while it was being published; nothing was published. Publish again to publish the newest draft"],
  InvalidRecordings: [
    new InvalidRecordings({ issues: [{ loc: ["body", "recordings", 0, "storage_key"], message: "recordings[0].storage_key: not WAV", input: "k" }] }),
    422,
    [{ loc: ["body", "recordings", 0, "storage_key"], msg: "recordings[0].storage_key: not WAV", type: "value_error", input: "k", ctx: {} }]
  ],
  RecordingIdTaken: [new RecordingIdTaken({ recordingId: "hello" }), 409,
    "recording_id 'hello' is already used by another recording of this organization; choose another name"],
  RecordingNotFound: [new RecordingNotFound({ recording: "rec_x" }), 404, "Recording rec_x not found in this organization"],
  SpeechToTextUnavailable: [new SpeechToTextUnavailable({ reason: "no recognizer" }), 503, "no recognizer"],
  UnreadableAudio: [new UnreadableAudio({ reason: "file: not WAV" }), 422,
    [{ loc: ["body", "file"], msg: "file: not WAV", type: "value_error", input: null, ctx: {} }]],
  TextChatNotFound: [new TextChatNotFound({ runId: 5 }), 404, "Text chat session 5 not found"],
  TextChatRevisionConflict: [new TextChatRevisionConflict({ expected: 1, current: 2 }), 409,
    "The session is at revision 2, not 1: read it again and retry"],
  TextChatEnded: [new TextChatEnded(), 409, "This text chat session has ended"],
  TextChatUnknownTurn: [new TextChatUnknownTurn({ turnId: "turn_x" }), 422,
    [{ loc: ["body", "cursor_turn_id"], msg: "There is no turn 'turn_x' in this session", type: "value_error", input: "turn_x", ctx: {} }]],
  TextChatUnavailable: [new TextChatUnavailable({ reason: "No language model" }), 503, "No language model"],
  EmbedChatRefused: [new EmbedChatRefused({ reason: "Invalid or expired session" }), 403, "Invalid or expired session"]
} satisfies { readonly [Tag in DomainError["_tag"]]: Case }

describe("the domain → wire mapping", () => {
  for (const [tag, [error, status, detail]] of Object.entries<Case>(CASES)) {
    it(`${tag} answers ${status}`, () => {
      expect(error._tag).toBe(tag)
      const wire = toWire(error)
      expect(STATUS[wire._tag]).toBe(status)
      expect(wire.detail).toEqual(detail)
    })
  }

  it("domain messages name no route", () => {
    for (const [error] of Object.values<Case>(CASES)) expect(error.message).not.toMatch(/\/api\/v1|POST |PUT /)
  })
})
