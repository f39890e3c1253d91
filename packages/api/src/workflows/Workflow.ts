/**
 * Agents (workflows) as the API shows them, and their versions.
 *
 * Versioning model (docs/agents.md): every change of the definition, the template context variables
 * or the configurations saves a new version, a `draft`; `POST /workflow/{id}/publish` makes the draft
 * the `published` version. Campaigns, API triggers, inbound calls and the public embed run the
 * published version; test calls run the latest draft. Creating an agent publishes version 1. Earlier
 * versions are kept (status `archived`) and never change, so a run's `definition_id` always names
 * exactly what it ran. A name change is not a new version.
 *
 * In an agent: `current_definition_id` is the published version; `workflow_definition`,
 * `template_context_variables` and `workflow_configurations` are the latest version's (the draft when
 * there is one), and `version_number`/`version_status` say which version that is.
 */
import { DefinitionId, WorkflowId } from "../Ids.js"
import { Schema } from "effect"
import { lengthLimits } from "../Params.js"

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const WorkflowStatus = Schema.Literal("active", "archived")
export type WorkflowStatus = typeof WorkflowStatus.Type

export const VersionStatus = Schema.Literal("draft", "published", "archived")
export type VersionStatus = typeof VersionStatus.Type

export const Workflow = Schema.Struct({
  id: WorkflowId,
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Schema.String,
  workflow_definition: JsonObject,
  current_definition_id: Schema.NullOr(DefinitionId),
  template_context_variables: Schema.NullOr(JsonObject),
  call_disposition_codes: Schema.NullOr(JsonObject),
  total_runs: Schema.NullOr(Schema.Int),
  workflow_configurations: Schema.NullOr(JsonObject),
  version_number: Schema.NullOr(Schema.Int),
  version_status: Schema.NullOr(Schema.String),
  workflow_uuid: Schema.NullOr(Schema.String)
}).annotations({ identifier: "Workflow", description: "An agent (workflow) with its current definition" })
export type Workflow = typeof Workflow.Type

export const WorkflowListItem = Schema.Struct({
  id: WorkflowId,
  name: Schema.String,
  status: WorkflowStatus,
  created_at: Schema.String,
  total_runs: Schema.Int,
  workflow_uuid: Schema.String
}).annotations({ identifier: "WorkflowListItem", description: "An agent as listed (without its definition)" })
export type WorkflowListItem = typeof WorkflowListItem.Type

export const WorkflowVersion = Schema.Struct({
  id: DefinitionId,
  version_number: Schema.Int,
  status: VersionStatus,
  created_at: Schema.String,
  /** When the version was published; null for a draft and for a draft archived unpublished. */
  published_at: Schema.NullOr(Schema.String),
  workflow_definition: JsonObject,
  template_context_variables: Schema.NullOr(JsonObject),
  workflow_configurations: Schema.NullOr(JsonObject)
})
export type WorkflowVersion = typeof WorkflowVersion.Type

/** A number of seconds greater than 0 (and at most `max`), named in its message. */
const seconds = (name: string, max?: number) =>
  Schema.Number.pipe(Schema.filter((n) => Number.isFinite(n) && n > 0 && (max === undefined || n <= max))).annotations({
    message: () => ({
      message: `${name} must be a number of seconds greater than 0${max === undefined ? "" : ` and at most ${max}`}`,
      override: true
    })
  })

const integerIn = (name: string, min: number, max: number) =>
  Schema.Number.pipe(Schema.int(), Schema.between(min, max)).annotations({
    message: () => ({ message: `${name} must be an integer from ${min} to ${max}`, override: true })
  })

const flag = (name: string) =>
  Schema.Boolean.annotations({ message: () => ({ message: `${name} must be true or false`, override: true }) })

/** A setting may be absent or `null` (unset: the default applies), as in the reference. */
const setting = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(Schema.NullOr(schema), { exact: true })

const OtherKeys = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * An agent's `workflow_configurations` as requests may set them: the keys the voice runtime reads are
 * checked with the reference's bounds (`max_call_duration` at most 1200 s, a slot's stale timeout);
 * other keys (the reference's UI settings, `model_overrides`, ...) are kept as sent.
 */
export const WorkflowConfigurations = Schema.Struct({
  max_call_duration: setting(seconds("max_call_duration", 1200)),
  max_user_idle_timeout: setting(seconds("max_user_idle_timeout")),
  smart_turn_stop_secs: setting(seconds("smart_turn_stop_secs")),
  provisional_vad_pause_secs: setting(seconds("provisional_vad_pause_secs")),
  turn_start_strategy: setting(Schema.Literal("default", "min_words", "provisional_vad")),
  turn_start_min_words: setting(integerIn("turn_start_min_words", 1, 100)),
  turn_stop_strategy: setting(Schema.Literal("transcription", "turn_analyzer")),
  text_chat_inactivity_timeout_seconds: setting(integerIn("text_chat_inactivity_timeout_seconds", 60, 10_500)),
  context_compaction_enabled: setting(flag("context_compaction_enabled")),
  dictionary: setting(Schema.String),
  voicemail_detection: setting(Schema.Struct({
    enabled: setting(flag("enabled")),
    use_workflow_llm: setting(flag("use_workflow_llm")),
    long_speech_timeout: setting(seconds("long_speech_timeout")),
    system_prompt: setting(Schema.String)
  }, OtherKeys)),
  do_not_call_detection: setting(Schema.Struct({
    enabled: setting(flag("enabled")),
    phrases: setting(Schema.Array(Schema.String))
  }, OtherKeys)),
  model_overrides: setting(OtherKeys)
}, OtherKeys).annotations({ identifier: "WorkflowConfigurations" })
export type WorkflowConfigurations = typeof WorkflowConfigurations.Type

const Name = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "name must not be empty" }),
  Schema.maxLength(255, { message: () => "name must be at most 255 characters" })
).annotations(lengthLimits(1, 255))

export const CreateWorkflowRequest = Schema.Struct({
  name: Name,
  workflow_definition: JsonObject,
  template_context_variables: Schema.optional(Schema.NullOr(JsonObject)),
  workflow_configurations: Schema.optional(Schema.NullOr(WorkflowConfigurations))
})
export type CreateWorkflowRequest = typeof CreateWorkflowRequest.Type

export const UpdateWorkflowRequest = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Name)),
  workflow_definition: Schema.optional(Schema.NullOr(JsonObject)),
  template_context_variables: Schema.optional(Schema.NullOr(JsonObject)),
  workflow_configurations: Schema.optional(Schema.NullOr(WorkflowConfigurations))
})
export type UpdateWorkflowRequest = typeof UpdateWorkflowRequest.Type

export const SetStatusRequest = Schema.Struct({ status: WorkflowStatus })

/** `POST /workflow/{id}/publish`: the version now published (the reference's answer). */
export const PublishedVersion = Schema.Struct({
  id: DefinitionId,
  version_number: Schema.Int,
  status: Schema.Literal("published"),
  published_at: Schema.String
})
export type PublishedVersion = typeof PublishedVersion.Type

/** One problem of a definition, in the reference's shape (`field` without the `data.` prefix). */
export const DefinitionProblem = Schema.Struct({
  kind: Schema.Literal("node", "edge", "workflow"),
  id: Schema.NullOr(Schema.String),
  field: Schema.NullOr(Schema.String),
  message: Schema.String
}).annotations({ identifier: "DefinitionProblem" })
export type DefinitionProblem = typeof DefinitionProblem.Type

/** `POST /workflow/{id}/validate` when the definition is valid; the 422 carries the same shape with the problems. */
export const ValidationResult = Schema.Struct({
  is_valid: Schema.Boolean,
  errors: Schema.Array(DefinitionProblem)
}).annotations({ identifier: "ValidationResult" })
export type ValidationResult = typeof ValidationResult.Type

export const ListWorkflowsParams = Schema.Struct({
  status: Schema.optional(
    Schema.String.pipe(
      Schema.filter((s) => s.split(",").every((p) => p.trim() === "active" || p.trim() === "archived"), {
        arbitrary: () => (fc) => fc.constantFrom("active", "archived", "active,archived"),
        message: () => "status must be active, archived, or active,archived"
      })
    )
  )
})
