/**
 * What several node types' properties share: names, prompts, extraction, references to
 * recordings, tools and credentials, and the graph rule of a node that is not a step of the call.
 */
import { Schema } from "effect"
import { choice, type DisplayConditions, flag, jsonOf, refs, requiredChoice, requiredText, rows, Strings, text } from "../NodeSpec.js"

export const TEMPLATES = "Template variables: `{{first_name}}` (a key of the call's initial_context, e.g. a CSV column or the API call's " +
  "`initial_context`), `{{gathered_context.city}}` (extracted during the call), `{{name | default}}` (a default when unset)."

export const nameOf = (description: string) => requiredText({ display_name: "Name", description })

export const prompt = (description: string, placeholder: string) =>
  requiredText({ type: "mention_textarea", display_name: "Prompt", description, llm_hint: TEMPLATES, placeholder })

export const behaviour = {
  allow_interrupt: flag({
    display_name: "Caller may interrupt",
    description: "The caller's speech stops the agent mid-sentence. Off: the agent finishes what it is saying.",
    default: false
  }),
  add_global_prompt: flag({
    display_name: "Prepend the global prompt",
    description: "Put the Global prompt node's text before this step's prompt (when the agent has one).",
    default: true
  })
}

const whileExtracting = { show: { extraction_enabled: [true] } }

export const extraction = {
  extraction_enabled: flag({
    display_name: "Extract variables from the conversation",
    description: "Let the agent record the variables below from what the caller says, into the run's gathered_context.",
    default: false
  }),
  extraction_prompt: text({
    editor: "textarea",
    display_name: "Extraction prompt",
    description: "Instructions for extracting the variables (what counts, which format).",
    display_options: whileExtracting
  }),
  extraction_variables: rows({
    display_name: "Variables to extract",
    description: "One row per variable: its name in gathered_context, its type and what to listen for.",
    llm_hint: "A list of {name, type, prompt?}; `type` is string, number or boolean.",
    display_options: whileExtracting
  }, {
    name: requiredText({ display_name: "Name", description: "The variable's name in gathered_context (snake_case)." }),
    type: requiredChoice(["string", "number", "boolean"], {
      display_name: "Type",
      description: "The type of the value; a value of another type is refused.",
      labels: { string: "Text", number: "Number", boolean: "Yes/no" }
    }),
    prompt: text({ display_name: "Description", description: "What to listen for." })
  })
}

/** Shown only when set: the field is kept for definitions that carry it, not offered to new ones. */
export const onlyWhenSet = (field: string): DisplayConditions => ({ hide: { [field]: [null] } })

export const references = {
  tool_uuids: refs("tool_refs", {
    display_name: "Tools",
    description: "The organization's tools (HTTP requests, MCP servers) the agent may call in this step. Saving refuses a tool " +
      "that is not an active tool of the organization, and two tools the model would call by the same name. During a call " +
      "the model is offered them and may call them (docs/tools.md).",
    llm_hint: "A list of `tool_uuid`s from `GET /api/v1/tools/` (the SDK's `listTools`) whose `status` is `active`."
  }),
  document_uuids: refs("document_refs", {
    display_name: "Document UUIDs",
    description: "Knowledge-base documents for this step. Stored only: this server has no knowledge base.",
    llm_hint: "A list of document UUIDs. This server has no knowledge base (`GET /api/v1/knowledge-base/documents` answers 404): leave it out."
  }),
  mcp_tool_filters: jsonOf({
    display_name: "MCP tools this step may use",
    description: "For an MCP tool listed in Tools, the names of its server's tools this step may use; an MCP tool without an " +
      "entry offers every tool its own filter allows. Saving refuses a name the server did not list at its last refresh.",
    llm_hint: "An object from the `tool_uuid` of an MCP tool in `tool_uuids` to a list of names from that tool's " +
      "`definition.config.discovered_tools`, e.g. {\"6f1c…\": [\"lookup_customer\"]}.",
    display_options: onlyWhenSet("tool_uuids")
  }, Schema.Record({ key: Schema.String, value: Strings }))
}

/** Whether a text (greeting, transition speech) is synthesized or a recording is played instead. */
export const spokenAs = (display_name: string, what: string) =>
  choice(["text", "audio"], {
    display_name,
    description: `Speak ${what}, or play a recording.`,
    labels: { text: "Text (synthesized speech)", audio: "Recording" },
    default: "text"
  })

/** The recording played while `typeField` is `audio`. */
export const recordingFor = (typeField: string, display_name: string, description: string) =>
  text({
    type: "recording_ref",
    display_name,
    description,
    llm_hint: `A \`recording_id\` from \`GET /api/v1/workflow-recordings/\` (the SDK's \`listRecordings\`). Saving refuses one that is ` +
      `not an active recording of the organization while \`${typeField}\` is \`audio\`.`,
    display_options: { show: { [typeField]: ["audio"] } }
  })

export const fetching = { show: { pre_call_fetch_mode: ["always", "inbound", "outbound"] } }

/** Nodes that are not steps of the conversation take no edges at all. */
export const unconnected = (why: string) => ({ max_incoming: 0, max_outgoing: 0, why: { incoming: why, outgoing: why } })
