/**
 * The node types of the conversation itself: where it starts, its steps, where it ends, and the
 * global prompt every step may prepend.
 */
import { choice, flag, nodeType, number, requiredText, text } from "../NodeSpec.js"
import { behaviour, extraction, fetching, nameOf, onlyWhenSet, prompt, recordingFor, references, spokenAs, TEMPLATES, unconnected } from "./Fields.js"

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
