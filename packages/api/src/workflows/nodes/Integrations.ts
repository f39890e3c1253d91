/**
 * The node types that connect an agent to other systems: the API trigger that starts its calls
 * and the webhook sent after a call.
 */
import { choice, flag, json, nodeType, requiredString, requiredText, rows, text } from "../NodeSpec.js"
import { nameOf, unconnected } from "./Fields.js"

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
