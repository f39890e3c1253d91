/**
 * Every node type an agent definition may hold, and the data of an edge, each declared once (see
 * `NodeSpec.ts`): the node-type catalog (`GET /api/v1/node-types`), the server's definition schemas
 * and graph rules (`@agentline/core/workflows/`) and the dashboard's node forms all read these.
 *
 * Descriptions are for people (the editor shows them under the field); `llm_hint`s are for programs
 * and language models building definitions (which list an id comes from, what is stored but not acted
 * on yet). Defaults are what the server does when a field is absent.
 */
import { Schema } from "effect"
import {
  choice,
  dataOf,
  type DisplayConditions,
  flag,
  json,
  jsonOf,
  nodeType,
  number,
  type NodeSpec,
  type PropertySpec,
  refs,
  requiredChoice,
  requiredString,
  requiredText,
  rows,
  SPEC_VERSION,
  specsOf,
  Strings,
  text
} from "./NodeSpec.js"

const TEMPLATES = "Template variables: `{{first_name}}` (a key of the call's initial_context, e.g. a CSV column or the API call's " +
  "`initial_context`), `{{gathered_context.city}}` (extracted during the call), `{{name | default}}` (a default when unset)."

const nameOf = (description: string) => requiredText({ display_name: "Name", description })

const prompt = (description: string, placeholder: string) =>
  requiredText({ type: "mention_textarea", display_name: "Prompt", description, llm_hint: TEMPLATES, placeholder })

const behaviour = {
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

const extraction = {
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
const onlyWhenSet = (field: string): DisplayConditions => ({ hide: { [field]: [null] } })

const references = {
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
const spokenAs = (display_name: string, what: string) =>
  choice(["text", "audio"], {
    display_name,
    description: `Speak ${what}, or play a recording.`,
    labels: { text: "Text (synthesized speech)", audio: "Recording" },
    default: "text"
  })

/** The recording played while `typeField` is `audio`. */
const recordingFor = (typeField: string, display_name: string, description: string) =>
  text({
    type: "recording_ref",
    display_name,
    description,
    llm_hint: `A \`recording_id\` from \`GET /api/v1/workflow-recordings/\` (the SDK's \`listRecordings\`). Saving refuses one that is ` +
      `not an active recording of the organization while \`${typeField}\` is \`audio\`.`,
    display_options: { show: { [typeField]: ["audio"] } }
  })

const fetching = { show: { pre_call_fetch_mode: ["always", "inbound", "outbound"] } }

/** Nodes that are not steps of the conversation take no edges at all. */
const unconnected = (why: string) => ({ max_incoming: 0, max_outgoing: 0, why: { incoming: why, outgoing: why } })

export const StartCall = nodeType({
  name: "startCall",
  display_name: "Start call",
  description: "Where every call begins: the greeting, then the first step of the conversation, led by its prompt.",
  llm_hint: "Exactly one per agent, and no edge leads into it. Connect it to the next step (agentNode or endCall) with edges " +
    "whose `condition` says when to move on. The greeting is said first (played when `greeting_type` is `audio`); without " +
    "one the model speaks first from `prompt`.",
  category: "call_node",
  icon: "Play",
  properties: {
    name: nameOf("Shown on the canvas and in the run's events."),
    prompt: prompt(
      "What the agent does in the opening turn. {{variable}} inserts a value of the call.",
      "Greet the caller warmly and ask how you can help today."
    ),
    greeting: text({
      type: "mention_textarea",
      display_name: "Greeting",
      description: "Said first when the call connects. Empty: the agent speaks first, from the prompt. With a recording, this " +
        "text is said instead if the recording cannot be played.",
      llm_hint: TEMPLATES,
      placeholder: "Hi {{first_name}}, this is Sarah from Acme."
    }),
    greeting_type: spokenAs("Greeting type", "the greeting text"),
    greeting_recording_id: recordingFor("greeting_type", "Greeting recording", "The recording played as the greeting when the greeting type is Recording."),
    ...behaviour,
    delayed_start: flag({
      display_name: "Wait before speaking",
      description: "Wait a moment after the call connects before the agent speaks (on outbound calls the callee needs a moment).",
      default: false
    }),
    delayed_start_duration: number({
      display_name: "Wait (seconds)",
      description: "How long to wait before speaking, from 0.1 to 10 seconds.",
      min: 0.1,
      max: 10,
      fractional: true,
      default: 2,
      display_options: { show: { delayed_start: [true] } }
    }),
    pre_call_fetch_mode: choice(["disabled", "always", "inbound", "outbound"], {
      display_name: "Pre-call fetch",
      description: "Fetch data for the call from an HTTP endpoint before it starts. Stored only: this server does not make the request yet.",
      labels: { disabled: "Off", always: "Every call", inbound: "Inbound calls", outbound: "Outbound calls" },
      default: "disabled"
    }),
    pre_call_fetch_url: text({
      type: "url",
      display_name: "Pre-call fetch URL",
      description: "Where the pre-call request goes.",
      placeholder: "https://api.example.com/customer-lookup",
      display_options: fetching
    }),
    pre_call_fetch_credential_uuid: text({
      type: "credential_ref",
      display_name: "Pre-call fetch credential UUID",
      description: "A stored credential whose header the pre-call request carries.",
      llm_hint: "A credential `uuid` from `GET /api/v1/credentials/` (the SDK's `listCredentials`).",
      display_options: fetching
    }),
    pre_call_fetch_enabled: flag({
      display_name: "Pre-call fetch (older setting)",
      description: "The reference's older switch for the pre-call fetch (on means every call); use Pre-call fetch instead.",
      llm_hint: "Legacy; accepted on input for old definitions. Set `pre_call_fetch_mode` instead.",
      display_options: onlyWhenSet("pre_call_fetch_enabled")
    }),
    ...extraction,
    ...references
  },
  examples: [{
    name: "warm_greeting",
    description: "A greeting with the caller's first name, then the reason for the call.",
    data: {
      name: "Greeting",
      prompt: "Greet the caller and ask why they are calling. Be brief.",
      greeting_type: "text",
      greeting: "Hi {{first_name | there}}, this is Sarah from Acme.",
      allow_interrupt: true
    }
  }],
  graph: {
    min_instances: 1,
    max_instances: 1,
    max_incoming: 0,
    why: { instances: "it is where every call begins", incoming: "calls only begin there" }
  }
})

export const AgentNode = nodeType({
  name: "agentNode",
  display_name: "Agent",
  description: "A step of the conversation: the agent follows its prompt until an edge's condition is met.",
  llm_hint: "Reached by edges from startCall or other agent nodes. Its outgoing edges are the transitions the model may take: " +
    "each edge's `label` becomes a tool name and its `condition` the tool's description. Loops are allowed.",
  category: "call_node",
  icon: "Bot",
  properties: {
    name: nameOf("Shown on the canvas and in the run's events (e.g. 'Qualify budget')."),
    prompt: prompt("What the agent does in this step. {{variable}} inserts a value of the call.", "Ask about the budget and the timeline."),
    ...behaviour,
    ...extraction,
    ...references
  },
  examples: [{
    name: "qualify",
    description: "A step that records two answers.",
    data: {
      name: "Qualify",
      prompt: "Ask {{first_name}} about the loan amount and when they need it.",
      allow_interrupt: true,
      extraction_enabled: true,
      extraction_variables: [
        { name: "loan_amount", type: "number", prompt: "The amount in dollars" },
        { name: "timeline", type: "string" }
      ]
    }
  }],
  graph: {}
})

export const EndCall = nodeType({
  name: "endCall",
  display_name: "End call",
  description: "The last step: the agent says its closing words, then hangs up.",
  llm_hint: "No outgoing edges. An agent may have several, reached by different conditions (a sale, a refusal).",
  category: "call_node",
  icon: "PhoneOff",
  properties: {
    name: nameOf("Shown on the canvas and in the run's events (e.g. 'Polite decline')."),
    prompt: prompt("What the agent says and does before hanging up. {{variable}} inserts a value of the call.", "Thank the caller and say goodbye."),
    ...behaviour,
    ...extraction
  },
  examples: [{ name: "goodbye", data: { name: "Goodbye", prompt: "Thank {{first_name | the caller}} for their time and say goodbye." } }],
  graph: { max_outgoing: 0, why: { outgoing: "the call ends there" } }
})

export const GlobalNode = nodeType({
  name: "globalNode",
  display_name: "Global prompt",
  description: "Text put before the prompt of every step that has 'Prepend the global prompt' on: persona, tone, rules for the whole call.",
  llm_hint: "At most one per agent; it takes no edges.",
  category: "global_node",
  icon: "Globe",
  properties: {
    name: nameOf("Shown on the canvas."),
    prompt: requiredText({
      type: "mention_textarea",
      display_name: "Global prompt",
      description: "Prepended to the prompt of every node that asks for it. {{variable}} inserts a value of the call.",
      llm_hint: TEMPLATES,
      placeholder: "You are Sarah, a friendly assistant at Acme. Keep answers short."
    })
  },
  examples: [{ name: "persona", data: { name: "Persona", prompt: "You are Sarah from Acme Loans. Be warm, brief and never pushy." } }],
  graph: { max_instances: 1, ...unconnected("it is not a step of the conversation") }
})

export const Trigger = nodeType({
  name: "trigger",
  display_name: "API trigger",
  description: "Lets other systems start calls of this agent: POST /api/v1/public/agent/{trigger path} with an API key.",
  llm_hint: "Body: {phone_number (required), initial_context (object, optional), telephony_configuration_id (optional)}; " +
    "header X-API-Key. Every save publishes, so the URL always runs the latest version. At most one per agent; no edges into it.",
  category: "trigger",
  icon: "Zap",
  properties: {
    name: nameOf("Shown on the canvas."),
    trigger_path: text({
      display_name: "Trigger path",
      description: "The last segment of the trigger's URL: letters, digits, _ and -, at most 36. Left empty, one is made on save.",
      llm_hint: "Leave it out to have one minted on save; it must not be used by another agent (409 otherwise).",
      pattern: /^[A-Za-z0-9_-]{0,36}$/,
      max_length: 36,
      message: "must be 1 to 36 characters of letters, digits, '_' and '-'"
    }),
    enabled: flag({ display_name: "Enabled", description: "Off: the trigger URL answers 404.", default: true })
  },
  examples: [{ name: "crm_trigger", data: { name: "CRM trigger", trigger_path: "crm-callback", enabled: true } }],
  graph: { max_instances: 1, max_incoming: 0 }
})

export const Webhook = nodeType({
  name: "webhook",
  display_name: "Webhook",
  description: "After each call, sends an HTTP request with the call's results (retried like the organization's webhooks).",
  llm_hint: "Strings of `endpoint_url`, header values and `payload_template` are templates over the run: `{{workflow_run_id}}`, " +
    "`{{initial_context.x}}`, `{{gathered_context.x}}`, `{{cost_info.call_duration_seconds}}`, `{{recording_url}}`, " +
    "`{{transcript_url}}`; a string that is one placeholder alone becomes the value itself. It takes no edges.",
  category: "integration",
  icon: "Link2",
  properties: {
    name: nameOf("Shown on the canvas and in the run's logs."),
    enabled: flag({ display_name: "Enabled", description: "Off: no request is sent.", default: true }),
    http_method: choice(["GET", "POST", "PUT", "PATCH", "DELETE"], {
      display_name: "HTTP method",
      description: "GET and DELETE send no body.",
      labels: { GET: "GET", POST: "POST", PUT: "PUT", PATCH: "PATCH", DELETE: "DELETE" },
      default: "POST"
    }),
    endpoint_url: text({
      type: "url",
      display_name: "Endpoint URL",
      description: "Where the request goes; {{variable}} inserts a value of the run.",
      placeholder: "https://crm.example.com/calls"
    }),
    credential_uuid: text({
      type: "credential_ref",
      display_name: "Credential UUID",
      description: "A stored credential whose header the request carries.",
      llm_hint: "A credential `uuid` from `GET /api/v1/credentials/` (the SDK's `listCredentials`)."
    }),
    custom_headers: rows({
      display_name: "Headers",
      description: "Extra request headers; values may use {{variable}}.",
      llm_hint: "A list of {key, value}."
    }, {
      key: requiredText({ display_name: "Name", description: "The header's name (e.g. X-Source)." }),
      value: requiredString({ display_name: "Value", description: "The header's value; {{variable}} inserts a value of the run." })
    }),
    payload_template: json({
      display_name: "Payload template (JSON)",
      description: "The request's JSON body; its strings are templates ({{workflow_run_id}}, {{gathered_context.x}}, {{recording_url}}…). " +
        "Without one the body is {workflow_run_id, initial_context, gathered_context}."
    })
  },
  examples: [{
    name: "post_to_crm",
    data: {
      name: "Notify CRM",
      enabled: true,
      http_method: "POST",
      endpoint_url: "https://crm.example.com/calls",
      custom_headers: [{ key: "X-Source", value: "agentline" }],
      payload_template: { run_id: "{{workflow_run_id}}", outcome: "{{gathered_context.call_disposition}}" }
    }
  }],
  graph: unconnected("it runs after the call, not as a step of it")
})

const ownModel = { show: { qa_use_workflow_llm: [false] } }

export const Qa = nodeType({
  name: "qa",
  display_name: "QA review",
  description: "A review of each call by a language model (the reference's QA node). Stored only: this server does not run the review yet.",
  llm_hint: "Accepted so definitions move between this server and the reference unchanged; no review runs and no annotations are written. It takes no edges.",
  category: "integration",
  icon: "ClipboardCheck",
  properties: {
    name: nameOf("Shown on the canvas."),
    qa_enabled: flag({ display_name: "Enabled", description: "Off: calls are not reviewed.", default: true }),
    qa_system_prompt: text({
      editor: "textarea",
      display_name: "Review prompt",
      description: "Instructions for the reviewing model."
    }),
    qa_min_call_duration: number({
      display_name: "Minimum call duration (seconds)",
      description: "Shorter calls are not reviewed.",
      min: 0,
      fractional: false,
      default: 15
    }),
    qa_voicemail_calls: flag({ display_name: "Review voicemail calls", description: "Off: calls that reached a voicemail are skipped.", default: false }),
    qa_sample_rate: number({
      display_name: "Sample rate (%)",
      description: "The share of calls reviewed, from 1 to 100 percent.",
      min: 1,
      max: 100,
      fractional: false,
      default: 100
    }),
    qa_use_workflow_llm: flag({ display_name: "Use the agent's model", description: "Off: use the provider and model below.", default: true }),
    qa_provider: choice(["openai", "azure", "openrouter", "anthropic"], {
      display_name: "Provider",
      description: "Who runs the reviewing model.",
      labels: { openai: "OpenAI", azure: "Azure OpenAI", openrouter: "OpenRouter", anthropic: "Anthropic" },
      display_options: ownModel
    }),
    qa_model: text({ display_name: "Model", description: "The provider's model name (e.g. gpt-4o).", display_options: ownModel }),
    qa_api_key: text({ editor: "password", display_name: "API key", description: "The provider's API key.", display_options: ownModel }),
    qa_endpoint: text({
      type: "url",
      display_name: "Endpoint",
      description: "The Azure OpenAI endpoint.",
      display_options: { show: { qa_use_workflow_llm: [false], qa_provider: ["azure"] } }
    })
  },
  examples: [{ name: "sampled_review", data: { name: "Compliance review", qa_enabled: true, qa_sample_rate: 20, qa_min_call_duration: 30 } }],
  graph: unconnected("it runs after the call, not as a step of it")
})

/** Every node type, by name. */
export const NODE_TYPE_DECLARATIONS = {
  startCall: StartCall,
  agentNode: AgentNode,
  endCall: EndCall,
  globalNode: GlobalNode,
  trigger: Trigger,
  webhook: Webhook,
  qa: Qa
} as const

export const NODE_TYPES = ["startCall", "agentNode", "endCall", "globalNode", "trigger", "webhook", "qa"] as const satisfies ReadonlyArray<
  keyof typeof NODE_TYPE_DECLARATIONS
>
export type NodeType = (typeof NODE_TYPES)[number]

/** A value per node type, made by `f`. */
export const byNodeType = <A>(f: (type: NodeType) => A): { readonly [T in NodeType]: A } => ({
  startCall: f("startCall"),
  agentNode: f("agentNode"),
  endCall: f("endCall"),
  globalNode: f("globalNode"),
  trigger: f("trigger"),
  webhook: f("webhook"),
  qa: f("qa")
})

export const isNodeType = (value: unknown): value is NodeType =>
  typeof value === "string" && (NODE_TYPES as ReadonlyArray<string>).includes(value)

/** The catalog, in the order editors list the types. */
export const NODE_TYPE_SPECS: ReadonlyArray<NodeSpec> = NODE_TYPES.map((type) => NODE_TYPE_DECLARATIONS[type].spec)

export const nodeTypesResponse = { spec_version: SPEC_VERSION, node_types: NODE_TYPE_SPECS }

// ------------------------------------------------------------------------------------------ edges

const EDGE_PROPERTIES = {
  label: requiredText({
    display_name: "Label",
    description: "The transition's name; labels from one node must differ by more than case and punctuation.",
    llm_hint: "The model sees it as a tool name: lower-cased, every other character than a-z and 0-9 made '_'."
  }),
  condition: requiredText({
    editor: "textarea",
    display_name: "Condition",
    description: "When the conversation moves on along this edge, in plain words.",
    llm_hint: "The transition tool's description: the model takes the edge when it judges this true."
  }),
  transition_speech: text({
    type: "mention_textarea",
    display_name: "Transition speech",
    description: "Said while moving on (e.g. 'One moment, please'); {{variable}} inserts a value of the call."
  }),
  transition_speech_type: spokenAs("Transition speech type", "the transition text"),
  transition_speech_recording_id: recordingFor("transition_speech_type", "Transition speech recording", "The recording played when the type is Recording.")
}

/** An edge's `data` (not part of the reference's catalog, which covers nodes only; the editor's edge form reads it). */
export const EdgeData = dataOf(EDGE_PROPERTIES)
export const EDGE_PROPERTY_SPECS: ReadonlyArray<PropertySpec> = specsOf(EDGE_PROPERTIES)

// ------------------------------------------------------------------------------------------ graph rules

/** An edge end that breaks its node type's graph rules. */
export interface EdgeRuleBreak {
  readonly end: "source" | "target"
  readonly type: NodeType
  /** `no_edges`: the type takes none at all; otherwise the direction it takes none in. */
  readonly rule: "no_edges" | "no_incoming" | "no_outgoing"
  readonly why: string | undefined
}

const takesNoEdges = (type: NodeType) => {
  const graph = NODE_TYPE_DECLARATIONS[type].graph
  return graph.max_incoming === 0 && graph.max_outgoing === 0
}

/**
 * The graph rules an edge from a node of type `source` to one of type `target` breaks (either may be
 * unknown): into a type that takes no incoming edges, out of one that takes no outgoing edges, or at
 * a type that takes none. Nothing: the edge is allowed.
 */
export const edgeRuleBreaks = (source: NodeType | undefined, target: NodeType | undefined): ReadonlyArray<EdgeRuleBreak> => {
  const out: Array<EdgeRuleBreak> = []
  if (target !== undefined && !takesNoEdges(target) && NODE_TYPE_DECLARATIONS[target].graph.max_incoming === 0) {
    out.push({ end: "target", type: target, rule: "no_incoming", why: NODE_TYPE_DECLARATIONS[target].graph.why?.incoming })
  }
  if (source !== undefined && !takesNoEdges(source) && NODE_TYPE_DECLARATIONS[source].graph.max_outgoing === 0) {
    out.push({ end: "source", type: source, rule: "no_outgoing", why: NODE_TYPE_DECLARATIONS[source].graph.why?.outgoing })
  }
  for (const [end, type] of [["source", source], ["target", target]] as const) {
    if (type !== undefined && takesNoEdges(type)) out.push({ end, type, rule: "no_edges", why: NODE_TYPE_DECLARATIONS[type].graph.why?.incoming })
  }
  return out
}

/** The types whose `prompt` the agent speaks from (each needs a non-empty one). */
export const PROMPTED_NODE_TYPES: ReadonlyArray<NodeType> = NODE_TYPES.filter((type) => "prompt" in NODE_TYPE_DECLARATIONS[type].properties)
