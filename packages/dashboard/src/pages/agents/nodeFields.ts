/**
 * The form of each node type and of an edge: which fields, how each is edited, and how a form value
 * becomes the definition's JSON and back. The fields are the ones the server's definition schema knows
 * (the reference's node types); their rules (required, bounds, allowed values) are the server's too, so
 * what the form offers is what a save accepts. Fields the form does not know stay in `data` untouched.
 */
import type { JsonObject, NodeType } from "./definitionGraph.js"

export type FieldKind =
  | "text"
  | "secret"
  | "textarea"
  | "checkbox"
  | "select"
  | "number"
  /** A list of strings, one per line. */
  | "lines"
  /** Any JSON object, typed as text. */
  | "json"
  /** `[{name, type, prompt}]` rows. */
  | "extractionVariables"
  /** `[{key, value}]` rows. */
  | "headers"

export interface FieldSpec {
  readonly name: string
  readonly label: string
  readonly kind: FieldKind
  readonly required?: boolean
  readonly help?: string
  readonly options?: ReadonlyArray<string>
  readonly min?: number
  readonly max?: number
  readonly step?: number
}

const name: FieldSpec = { name: "name", label: "Name", kind: "text", required: true }

const prompted: ReadonlyArray<FieldSpec> = [
  { name: "prompt", label: "Prompt", kind: "textarea", required: true, help: "What the agent does at this step; {{variable}} inserts a value of the call" },
  { name: "allow_interrupt", label: "Caller may interrupt", kind: "checkbox" },
  { name: "add_global_prompt", label: "Prepend the global prompt", kind: "checkbox" }
]

const extraction: ReadonlyArray<FieldSpec> = [
  { name: "extraction_enabled", label: "Extract variables from the conversation", kind: "checkbox" },
  { name: "extraction_prompt", label: "Extraction prompt", kind: "textarea" },
  { name: "extraction_variables", label: "Variables to extract", kind: "extractionVariables" }
]

const references: ReadonlyArray<FieldSpec> = [
  { name: "tool_uuids", label: "Tool UUIDs", kind: "lines", help: "One per line" },
  { name: "document_uuids", label: "Document UUIDs", kind: "lines", help: "One per line" }
]

export const NODE_FIELDS: { readonly [T in NodeType]: ReadonlyArray<FieldSpec> } = {
  startCall: [
    name,
    { name: "greeting", label: "Greeting", kind: "textarea", help: "Said first, before the prompt's reply" },
    { name: "greeting_type", label: "Greeting type", kind: "select", options: ["text", "audio"] },
    { name: "greeting_recording_id", label: "Greeting recording id", kind: "text" },
    ...prompted,
    { name: "delayed_start", label: "Wait before speaking", kind: "checkbox" },
    { name: "delayed_start_duration", label: "Wait (seconds)", kind: "number", min: 0.1, max: 10, step: 0.1 },
    { name: "pre_call_fetch_mode", label: "Pre-call fetch", kind: "select", options: ["disabled", "always", "inbound", "outbound"] },
    { name: "pre_call_fetch_url", label: "Pre-call fetch URL", kind: "text" },
    { name: "pre_call_fetch_credential_uuid", label: "Pre-call fetch credential UUID", kind: "text" },
    ...extraction,
    ...references
  ],
  agentNode: [name, ...prompted, ...extraction, ...references],
  endCall: [name, ...prompted, ...extraction],
  globalNode: [name, { name: "prompt", label: "Global prompt", kind: "textarea", required: true, help: "Prepended to the prompt of every node that asks for it" }],
  trigger: [
    name,
    { name: "trigger_path", label: "Trigger path", kind: "text", help: "Letters, digits, _ and -, at most 36; left empty, one is made on save" },
    { name: "enabled", label: "Enabled", kind: "checkbox" }
  ],
  webhook: [
    name,
    { name: "enabled", label: "Enabled", kind: "checkbox" },
    { name: "http_method", label: "HTTP method", kind: "select", options: ["GET", "POST", "PUT", "PATCH", "DELETE"] },
    { name: "endpoint_url", label: "Endpoint URL", kind: "text" },
    { name: "credential_uuid", label: "Credential UUID", kind: "text" },
    { name: "custom_headers", label: "Headers", kind: "headers" },
    { name: "payload_template", label: "Payload template (JSON)", kind: "json", help: "{{workflow_run_id}}, {{gathered_context.x}}, {{recording_url}}… are filled in" }
  ],
  qa: [
    name,
    { name: "qa_enabled", label: "Enabled", kind: "checkbox" },
    { name: "qa_system_prompt", label: "Review prompt", kind: "textarea" },
    { name: "qa_min_call_duration", label: "Minimum call duration (seconds)", kind: "number", min: 0, step: 1 },
    { name: "qa_voicemail_calls", label: "Review voicemail calls", kind: "checkbox" },
    { name: "qa_sample_rate", label: "Sample rate (%)", kind: "number", min: 1, max: 100, step: 1 },
    { name: "qa_use_workflow_llm", label: "Use the agent's model", kind: "checkbox" },
    { name: "qa_provider", label: "Provider", kind: "select", options: ["openai", "azure", "openrouter", "anthropic"] },
    { name: "qa_model", label: "Model", kind: "text" },
    { name: "qa_api_key", label: "API key", kind: "secret" },
    { name: "qa_endpoint", label: "Endpoint", kind: "text" }
  ]
}

export const EDGE_FIELDS: ReadonlyArray<FieldSpec> = [
  { name: "label", label: "Label", kind: "text", required: true, help: "The transition's name; labels from one node must differ" },
  { name: "condition", label: "Condition", kind: "textarea", required: true, help: "When the conversation moves on along this edge" },
  { name: "transition_speech", label: "Transition speech", kind: "textarea" },
  { name: "transition_speech_type", label: "Transition speech type", kind: "select", options: ["text", "audio"] },
  { name: "transition_speech_recording_id", label: "Transition speech recording id", kind: "text" }
]

// ------------------------------------------------------------------------------------------ values

/** A field's value as its input shows it: a string for text-like inputs, a boolean for checkboxes. */
export const displayValue = (data: JsonObject, field: FieldSpec): string | boolean => {
  const value = data[field.name]
  switch (field.kind) {
    case "checkbox":
      return value === true
    case "lines":
      return Array.isArray(value) ? value.map(String).join("\n") : ""
    case "json":
      return value === undefined || value === null ? "" : JSON.stringify(value, null, 2)
    case "number":
      return typeof value === "number" ? String(value) : ""
    case "extractionVariables":
    case "headers":
      return ""
    default:
      return typeof value === "string" ? value : ""
  }
}

const without = (data: JsonObject, key: string): JsonObject => {
  const { [key]: _removed, ...rest } = data
  return rest
}

/**
 * `data` with the field set from its input, or the reason the input is not a value yet (a number or
 * JSON being typed). An emptied optional field is removed (the server's "not set"); a required one
 * keeps the empty string so the server says it is required, on the field.
 */
export const applyInput = (
  data: JsonObject,
  field: FieldSpec,
  input: string | boolean
): { readonly data: JsonObject } | { readonly error: string } => {
  switch (field.kind) {
    case "checkbox":
      return { data: { ...data, [field.name]: input === true } }
    case "lines": {
      const lines = String(input).split("\n").map((l) => l.trim()).filter((l) => l !== "")
      return { data: lines.length === 0 ? without(data, field.name) : { ...data, [field.name]: lines } }
    }
    case "number": {
      const text = String(input).trim()
      if (text === "") return { data: without(data, field.name) }
      const value = Number(text)
      if (!Number.isFinite(value)) return { error: `${field.label} must be a number` }
      return { data: { ...data, [field.name]: value } }
    }
    case "json": {
      const text = String(input).trim()
      if (text === "") return { data: without(data, field.name) }
      try {
        const value: unknown = JSON.parse(text)
        if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: `${field.label} must be a JSON object` }
        return { data: { ...data, [field.name]: value } }
      } catch (error) {
        return { error: `${field.label} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` }
      }
    }
    case "select": {
      const text = String(input)
      return { data: text === "" ? without(data, field.name) : { ...data, [field.name]: text } }
    }
    default: {
      const text = String(input)
      return { data: text === "" && field.required !== true ? without(data, field.name) : { ...data, [field.name]: text } }
    }
  }
}

// ------------------------------------------------------------------------------------------ rows

export interface ExtractionVariable {
  readonly name: string
  readonly type: "string" | "number" | "boolean"
  readonly prompt: string
}

export const EXTRACTION_TYPES: ReadonlyArray<ExtractionVariable["type"]> = ["string", "number", "boolean"]

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

export const extractionRows = (data: JsonObject): Array<ExtractionVariable> =>
  (Array.isArray(data.extraction_variables) ? data.extraction_variables : []).filter(isObject).map((v) => ({
    name: typeof v.name === "string" ? v.name : "",
    type: v.type === "number" || v.type === "boolean" ? v.type : "string",
    prompt: typeof v.prompt === "string" ? v.prompt : ""
  }))

export const withExtractionRows = (data: JsonObject, rows: ReadonlyArray<ExtractionVariable>): JsonObject =>
  rows.length === 0
    ? without(data, "extraction_variables")
    : { ...data, extraction_variables: rows.map((r) => (r.prompt === "" ? { name: r.name, type: r.type } : { ...r })) }

export interface Header {
  readonly key: string
  readonly value: string
}

export const headerRows = (data: JsonObject): Array<Header> =>
  (Array.isArray(data.custom_headers) ? data.custom_headers : []).filter(isObject).map((h) => ({
    key: typeof h.key === "string" ? h.key : "",
    value: typeof h.value === "string" ? h.value : ""
  }))

export const withHeaderRows = (data: JsonObject, rows: ReadonlyArray<Header>): JsonObject =>
  rows.length === 0 ? without(data, "custom_headers") : { ...data, custom_headers: rows.map((r) => ({ ...r })) }
