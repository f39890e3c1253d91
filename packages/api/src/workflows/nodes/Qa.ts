/**
 * The node type that reviews calls after they end (quality assurance).
 */
import { choice, flag, nodeType, number, text } from "../NodeSpec.js"
import { nameOf, unconnected } from "./Fields.js"

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
