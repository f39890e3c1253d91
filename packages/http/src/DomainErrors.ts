/**
 * The one mapping from domain errors (`@agentline/core`, named for what went wrong) to wire errors
 * (`@agentline/api`, `{"detail": ...}` with a status). It lives here because `@agentline/api` cannot
 * know core (a typed client must not pull in the server) and core must not know HTTP.
 *
 * It is exhaustive twice over: `DomainError` must list every error a service can fail with (a handler
 * wraps its service call in `wire`, which accepts only `DomainError`s), and `MAPPING` must have an entry
 * for every member of `DomainError` (a mapped type over the tags). A new domain error without its wire
 * answer is a type error.
 *
 * Where the answer names a route (how to recover), the route is written here, not in core.
 */
import {
  BadRequest,
  Conflict,
  DefinitionRejected,
  Forbidden,
  NotFound,
  PayloadTooLarge,
  ServiceUnavailable,
  TooManyRequests,
  Unauthorized,
  ValidationError,
  type WireError
} from "@agentline/api/Errors"
import type { ApiKeyNotFound, ApiKeyOwnerDeactivated, ApiKeyOwnerMissing, InvalidApiKey } from "@agentline/core/api-keys/Errors"
import type { AgentNotFound, AgentTriggerInactive, InvalidCallback, InvalidCallbackSignature, UnknownCall } from "@agentline/core/calls/Errors"
import type { InvalidTransition } from "@agentline/core/campaigns/CampaignState"
import type { CsvInvalid } from "@agentline/core/campaigns/CsvImport"
import type {
  CampaignAlreadyRedialed,
  CampaignChangedMeanwhile,
  CampaignImportUnfinished,
  CampaignNotEditable,
  CampaignNotFound,
  NothingToRedial
} from "@agentline/core/campaigns/Errors"
import type { CallNotPlaced, ConcurrencyLimitReached } from "@agentline/core/dispatcher/Errors"
import type { DoNotCallEntryNotFound, InvalidDoNotCallNumbers, NumberOnDoNotCallList } from "@agentline/core/do-not-call/Errors"
import type { OrganizationNotFound, PermissionDenied } from "@agentline/core/organizations/Errors"
import type {
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
import type { CredentialNotFound, InvalidCredentialData } from "@agentline/core/credentials/Errors"
import type { InvalidTool, NotAnMcpTool, ToolNotFound } from "@agentline/core/tools/Errors"
import type { WebhookDeliveryNotFound, WebhookEndpointNotFound, WebhookTargetRefused } from "@agentline/core/webhooks/Errors"
import type {
  InboundAgentArchived,
  InboundAgentNotFound,
  InvalidPhoneNumber,
  PhoneAddressImmutable,
  PhoneNumberNotFound,
  PhoneNumberTaken
} from "@agentline/core/phone-numbers/Errors"
import type { InvalidRunFilter, InvalidRunsCursor, PublicLinkInvalid, RunArtifactMissing, RunNotFound } from "@agentline/core/runs/Errors"
import type {
  EmbedChatRefused,
  TextChatEnded,
  TextChatNotFound,
  TextChatRevisionConflict,
  TextChatUnavailable,
  TextChatUnknownTurn
} from "@agentline/core/text-chat/Errors"
import type {
  InvalidTelephonyConfig,
  NoOutboundRoute,
  TelephonyAccountNumberTaken,
  TelephonyConfigurationInUse,
  TelephonyConfigurationNameTaken,
  TelephonyConfigurationNotFound,
  TelephonyProviderImmutable,
  TelephonyProviderUnavailable
} from "@agentline/core/telephony/Errors"
import type {
  UploadBodyTooLarge,
  UploadBodyUnreadable,
  UploadContentTypeRefused,
  UploadNoLongerStored,
  UploadNotFound,
  UploadTooLarge,
  UploadUrlInvalid,
  UploadUrlUsed
} from "@agentline/core/uploads/Errors"
import type {
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
import type {
  AgentArchived,
  DefinitionNotPublishable,
  DraftReplaced,
  InvalidWorkflowDefinition,
  NoDraftToPublish,
  TemplateNotFound,
  TriggerPathTaken,
  WorkflowNotFound
} from "@agentline/core/workflows/Errors"
import type {
  InvalidRecordings,
  RecordingIdTaken,
  RecordingNotFound,
  SpeechToTextUnavailable,
  UnreadableAudio
} from "@agentline/core/recordings/Errors"
import { Effect } from "effect"

/** Every error a core service can fail with. */
export type DomainError =
  | DoNotCallEntryNotFound
  | InvalidDoNotCallNumbers
  | NumberOnDoNotCallList
  | WebhookEndpointNotFound
  | WebhookDeliveryNotFound
  | WebhookTargetRefused
  | CredentialNotFound
  | InvalidCredentialData
  | ToolNotFound
  | InvalidTool
  | NotAnMcpTool
  | ApiKeyNotFound
  | ApiKeyOwnerMissing
  | ApiKeyOwnerDeactivated
  | InvalidApiKey
  | AgentNotFound
  | AgentTriggerInactive
  | InvalidCallback
  | InvalidCallbackSignature
  | UnknownCall
  | InvalidTransition
  | CsvInvalid
  | CampaignAlreadyRedialed
  | CampaignChangedMeanwhile
  | CampaignImportUnfinished
  | CampaignNotEditable
  | CampaignNotFound
  | NothingToRedial
  | CallNotPlaced
  | ConcurrencyLimitReached
  | OrganizationNotFound
  | PermissionDenied
  | InboundAgentArchived
  | InboundAgentNotFound
  | InvalidPhoneNumber
  | PhoneAddressImmutable
  | PhoneNumberNotFound
  | PhoneNumberTaken
  | PublicLinkInvalid
  | RunArtifactMissing
  | RunNotFound
  | InvalidRunsCursor
  | InvalidRunFilter
  | InvalidTelephonyConfig
  | NoOutboundRoute
  | TelephonyAccountNumberTaken
  | TelephonyConfigurationInUse
  | TelephonyConfigurationNameTaken
  | TelephonyConfigurationNotFound
  | TelephonyProviderImmutable
  | TelephonyProviderUnavailable
  | UploadBodyTooLarge
  | UploadBodyUnreadable
  | UploadContentTypeRefused
  | UploadNoLongerStored
  | UploadNotFound
  | UploadTooLarge
  | UploadUrlInvalid
  | UploadUrlUsed
  | EmailTaken
  | InvalidCredentials
  | LoginThrottled
  | LogoutNeedsSession
  | PasswordChangeNeedsSession
  | PasswordUnchanged
  | SessionInvalid
  | UserNoLongerExists
  | WrongCurrentPassword
  | UserNotFound
  | LastAdmin
  | OwnAccount
  | UserDeactivated
  | PasswordResetNeedsSession
  | AgentArchived
  | InvalidWorkflowDefinition
  | TriggerPathTaken
  | WorkflowNotFound
  | TemplateNotFound
  | NoDraftToPublish
  | DefinitionNotPublishable
  | DraftReplaced
  | EmbedAgentUnavailable
  | EmbedOriginRefused
  | EmbedTokenChangedMeanwhile
  | EmbedTokenExpired
  | EmbedTokenInactive
  | EmbedTokenNotFound
  | EmbedUsageLimitReached
  | EmbedVisitorThrottled
  | InvalidEmbedRequest
  | NoActiveEmbedToken
  | InvalidRecordings
  | RecordingIdTaken
  | RecordingNotFound
  | SpeechToTextUnavailable
  | UnreadableAudio
  | TextChatNotFound
  | TextChatRevisionConflict
  | TextChatEnded
  | TextChatUnknownTurn
  | TextChatUnavailable
  | EmbedChatRefused

const PRESIGN = "POST /api/v1/storage/presigned-upload-url"

/** The wire error saying the domain error's own message. */
const says = <W extends WireError>(Wire: new(props: { readonly detail: string }) => W) => (error: { readonly message: string }) =>
  new Wire({ detail: error.message })

const badRequest = says(BadRequest)
const unauthorized = says(Unauthorized)
const forbidden = says(Forbidden)
const notFound = says(NotFound)
const conflict = says(Conflict)
const payloadTooLarge = says(PayloadTooLarge)
const tooManyRequests = says(TooManyRequests)

const MAPPING = {
  DoNotCallEntryNotFound: notFound,
  InvalidDoNotCallNumbers: (e) =>
    new ValidationError({ detail: e.issues.map((i) => ({ loc: i.loc, msg: i.reason, type: "value_error", input: i.input, ctx: {} })) }),
  NumberOnDoNotCallList: conflict,
  WebhookEndpointNotFound: notFound,
  WebhookDeliveryNotFound: notFound,
  CredentialNotFound: notFound,
  InvalidCredentialData: (e) =>
    new ValidationError({
      detail: e.issues.map((i) => ({ loc: ["body", "credential_data", i.field], msg: i.message, type: "value_error", input: null, ctx: {} }))
    }),
  WebhookTargetRefused: (e) => ValidationError.single(["body", "url"], e.message, e.url),
  ToolNotFound: notFound,
  InvalidTool: (e) =>
    new ValidationError({ detail: e.issues.map((i) => ({ loc: ["body", ...i.loc], msg: i.message, type: "value_error", input: i.input, ctx: {} })) }),
  NotAnMcpTool: badRequest,
  ApiKeyNotFound: notFound,
  ApiKeyOwnerMissing: unauthorized,
  ApiKeyOwnerDeactivated: unauthorized,
  InvalidApiKey: unauthorized,
  AgentNotFound: notFound,
  AgentTriggerInactive: notFound,
  InvalidCallback: (e) => ValidationError.single(["body"], e.reason, null),
  InvalidCallbackSignature: unauthorized,
  UnknownCall: notFound,
  InvalidTransition: conflict,
  CsvInvalid: badRequest,
  CampaignAlreadyRedialed: conflict,
  CampaignChangedMeanwhile: conflict,
  CampaignImportUnfinished: conflict,
  CampaignNotEditable: conflict,
  CampaignNotFound: notFound,
  NothingToRedial: badRequest,
  CallNotPlaced: badRequest,
  ConcurrencyLimitReached: tooManyRequests,
  OrganizationNotFound: notFound,
  PermissionDenied: forbidden,
  InboundAgentArchived: conflict,
  InboundAgentNotFound: notFound,
  InvalidPhoneNumber: (e) => ValidationError.single(["body", e.field], e.reason, e.input),
  PhoneAddressImmutable: badRequest,
  PhoneNumberNotFound: notFound,
  PhoneNumberTaken: conflict,
  PublicLinkInvalid: notFound,
  RunArtifactMissing: notFound,
  RunNotFound: notFound,
  InvalidRunsCursor: badRequest,
  InvalidRunFilter: badRequest,
  InvalidTelephonyConfig: (e) => new ValidationError({ detail: e.issues }),
  NoOutboundRoute: (e) =>
    new BadRequest({
      detail: e.configurationId === null
        ? "telephony_configuration_not_found: the organization has no default outbound telephony configuration; " +
          "pass telephony_configuration_id or mark one with POST /api/v1/organizations/telephony-configs/{id}/set-default-outbound"
        : "telephony_configuration_not_found"
    }),
  TelephonyAccountNumberTaken: conflict,
  TelephonyConfigurationInUse: conflict,
  TelephonyConfigurationNameTaken: conflict,
  TelephonyConfigurationNotFound: notFound,
  TelephonyProviderImmutable: badRequest,
  TelephonyProviderUnavailable: badRequest,
  UploadBodyTooLarge: payloadTooLarge,
  UploadBodyUnreadable: badRequest,
  UploadContentTypeRefused: badRequest,
  UploadNoLongerStored: (e) => new BadRequest({ detail: `The file '${e.fileKey}' is no longer stored; upload it again with ${PRESIGN}` }),
  UploadNotFound: (e) =>
    new BadRequest({ detail: `source_id '${e.fileKey}' is not an uploaded file of this organization; upload it first with ${PRESIGN}` }),
  UploadTooLarge: payloadTooLarge,
  UploadUrlInvalid: () => new Forbidden({ detail: `Upload URL signature is invalid or expired; request a new one with ${PRESIGN}` }),
  UploadUrlUsed: () =>
    new Conflict({
      detail: "This upload URL has already been used: an upload URL works once, and the file stored with it " +
        `stays as it is. To upload another file, request a new URL with ${PRESIGN}`
    }),
  EmailTaken: conflict,
  InvalidCredentials: unauthorized,
  LoginThrottled: tooManyRequests,
  LogoutNeedsSession: () =>
    new BadRequest({
      detail: "Logging out ends a login session; an API key has none (archive the key with " +
        "DELETE /api/v1/user/api-keys/{api_key_id} instead)"
    }),
  PasswordChangeNeedsSession: () =>
    new Forbidden({
      detail: "Changing a password needs a login session (authorization: Bearer <token> from POST /api/v1/auth/login); " +
        "API keys cannot change passwords"
    }),
  PasswordUnchanged: conflict,
  SessionInvalid: () => new Unauthorized({ detail: "Invalid or expired token; log in again at POST /api/v1/auth/login" }),
  UserNoLongerExists: unauthorized,
  WrongCurrentPassword: forbidden,
  UserNotFound: notFound,
  LastAdmin: conflict,
  OwnAccount: conflict,
  UserDeactivated: forbidden,
  PasswordResetNeedsSession: () =>
    new Forbidden({
      detail: "Resetting a user's password needs a login session (authorization: Bearer <token> from POST /api/v1/auth/login); " +
        "API keys cannot reset passwords"
    }),
  AgentArchived: (e) =>
    new Conflict({
      detail: `Agent ${e.workflowId} is archived and cannot be called; ` +
        `restore it with PUT /api/v1/workflow/${e.workflowId}/status {"status": "active"}`
    }),
  InvalidWorkflowDefinition: (e) => new ValidationError({ detail: e.issues }),
  TriggerPathTaken: conflict,
  WorkflowNotFound: notFound,
  TemplateNotFound: notFound,
  NoDraftToPublish: (e) =>
    new BadRequest({
      detail: `No draft to publish: the latest version of agent ${e.workflowId} is already the published one; ` +
        `save a change with PUT /api/v1/workflow/${e.workflowId} or POST /api/v1/workflow/${e.workflowId}/create-draft first`
    }),
  DefinitionNotPublishable: (e) => new DefinitionRejected({ detail: { is_valid: false, errors: e.problems } }),
  DraftReplaced: conflict,
  EmbedAgentUnavailable: forbidden,
  EmbedOriginRefused: forbidden,
  EmbedTokenChangedMeanwhile: conflict,
  EmbedTokenExpired: forbidden,
  EmbedTokenInactive: forbidden,
  EmbedTokenNotFound: notFound,
  EmbedUsageLimitReached: forbidden,
  EmbedVisitorThrottled: tooManyRequests,
  InvalidEmbedRequest: (e) =>
    new ValidationError({ detail: e.issues.map((i) => ({ loc: i.loc, msg: i.message, type: "value_error", input: i.input, ctx: {} })) }),
  NoActiveEmbedToken: notFound,
  InvalidRecordings: (e) =>
    new ValidationError({ detail: e.issues.map((i) => ({ loc: i.loc, msg: i.message, type: "value_error", input: i.input, ctx: {} })) }),
  RecordingIdTaken: conflict,
  RecordingNotFound: notFound,
  SpeechToTextUnavailable: says(ServiceUnavailable),
  UnreadableAudio: (e) => ValidationError.single(["body", "file"], e.message, null),
  TextChatNotFound: notFound,
  TextChatRevisionConflict: conflict,
  TextChatEnded: conflict,
  TextChatUnknownTurn: (e) => ValidationError.single(["body", "cursor_turn_id"], e.message, e.turnId),
  TextChatUnavailable: says(ServiceUnavailable),
  EmbedChatRefused: forbidden
} as const satisfies { readonly [E in DomainError as E["_tag"]]: (error: E) => WireError }

/** The wire error a domain error becomes (e.g. `Unauthorized` for `InvalidApiKey`). */
export type WireOf<E extends DomainError> = ReturnType<(typeof MAPPING)[E["_tag"]]>

/** The wire answer to a domain error. */
export const toWire = <E extends DomainError>(error: E): WireOf<E> =>
  (MAPPING[error._tag] as (error: DomainError) => WireError)(error) as WireOf<E>

/** A service call as a handler returns it: its domain errors become wire errors. */
export const wire = <A, E extends DomainError, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, WireOf<E>, R> =>
  Effect.mapError(effect, toWire)
