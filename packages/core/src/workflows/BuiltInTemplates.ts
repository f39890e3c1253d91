/**
 * The built-in agent templates (`GET /workflow/templates`): useful starting points that pass the same
 * checks as any saved definition (Templates test creates an agent from each). Choosing one for a
 * description is a pure keyword match (`chooseTemplate`): no language model is involved.
 */
import type { WorkflowTemplate } from "@agentline/api/workflows/Operations"

type Node = { readonly id: string; readonly type: string; readonly data: Record<string, unknown> }
type Edge = { readonly source: string; readonly target: string; readonly label: string; readonly condition: string }

const graph = (nodes: ReadonlyArray<Node>, edges: ReadonlyArray<Edge>) => ({
  nodes: nodes.map((node, i) => ({ ...node, position: { x: 0, y: i * 150 } })),
  edges: edges.map((edge, i) => ({ id: `e${i + 1}`, source: edge.source, target: edge.target, data: { label: edge.label, condition: edge.condition } })),
  viewport: { x: 0, y: 0, zoom: 1 }
})

const extract = (prompt: string, variables: ReadonlyArray<readonly [name: string, type: "string" | "number" | "boolean", prompt: string]>) => ({
  extraction_enabled: true,
  extraction_prompt: prompt,
  extraction_variables: variables.map(([name, type, p]) => ({ name, type, prompt: p }))
})

interface BuiltIn extends WorkflowTemplate {
  readonly call_type: "inbound" | "outbound"
  readonly keywords: ReadonlyArray<string>
}

const CREATED_AT = "2026-01-01T00:00:00.000Z"

export const BUILT_IN_TEMPLATES: ReadonlyArray<BuiltIn> = [
  {
    id: 1,
    template_name: "Appointment reminder",
    template_description: "Calls a contact about an upcoming appointment, confirms it or records the time they would rather have.",
    call_type: "outbound",
    keywords: ["appointment", "reminder", "remind", "booking", "visit", "clinic", "dentist", "doctor", "confirm", "reschedule"],
    created_at: CREATED_AT,
    template_json: graph([
      {
        id: "start",
        type: "startCall",
        data: {
          name: "Greeting",
          greeting: "Hello {{first_name}}, this is a reminder from {{business_name}}.",
          prompt: "You are calling {{first_name}} to remind them of their appointment on {{appointment_time}}. Ask whether they can make it."
        }
      },
      {
        id: "confirm",
        type: "agentNode",
        data: {
          name: "Confirm or reschedule",
          prompt: "If they confirm, thank them. If not, ask which day and time would suit them better.",
          ...extract("Record whether the appointment is confirmed and any new time asked for.", [
            ["confirmed", "boolean", "Whether the contact will come at the booked time"],
            ["preferred_time", "string", "The day and time they would rather have, if they asked to move it"]
          ])
        }
      },
      { id: "end", type: "endCall", data: { name: "Goodbye", prompt: "Thank them and say goodbye." } }
    ], [
      { source: "start", target: "confirm", label: "answered", condition: "The contact said whether they can come" },
      { source: "confirm", target: "end", label: "done", condition: "The appointment is confirmed or a new time was given" }
    ])
  },
  {
    id: 2,
    template_name: "Lead qualification",
    template_description: "Calls a lead, asks about their need, budget and timeline, and records whether they qualify.",
    call_type: "outbound",
    keywords: ["lead", "qualification", "qualify", "sales", "prospect", "budget", "demo", "interest", "product"],
    created_at: CREATED_AT,
    template_json: graph([
      {
        id: "start",
        type: "startCall",
        data: {
          name: "Introduction",
          greeting: "Hi {{first_name}}, I'm calling from {{business_name}} about your interest in {{product}}.",
          prompt: "Introduce yourself briefly and ask whether they have a few minutes."
        }
      },
      {
        id: "qualify",
        type: "agentNode",
        data: {
          name: "Qualify",
          prompt: "Ask what problem they want to solve, their budget and when they want to start. Be brief and polite.",
          ...extract("Record the lead's answers.", [
            ["need", "string", "What they want to solve"],
            ["budget", "string", "Their budget, as they said it"],
            ["timeline", "string", "When they want to start"],
            ["qualified", "boolean", "Whether they have a need, a budget and a timeline within six months"]
          ])
        }
      },
      { id: "end", type: "endCall", data: { name: "Wrap up", prompt: "Tell them a colleague will follow up, thank them and say goodbye." } }
    ], [
      { source: "start", target: "qualify", label: "has_time", condition: "The lead agreed to talk" },
      { source: "qualify", target: "end", label: "done", condition: "Need, budget and timeline were discussed, or the lead wants to stop" }
    ])
  },
  {
    id: 3,
    template_name: "Customer survey",
    template_description: "Asks a customer three short questions about a recent experience and records their answers.",
    call_type: "outbound",
    keywords: ["survey", "feedback", "satisfaction", "nps", "rating", "questionnaire", "poll", "review"],
    created_at: CREATED_AT,
    template_json: graph([
      {
        id: "start",
        type: "startCall",
        data: {
          name: "Greeting",
          greeting: "Hello {{first_name}}, we'd love two minutes of feedback about your recent experience with {{business_name}}.",
          prompt: "Ask whether they are willing to answer three short questions."
        }
      },
      {
        id: "questions",
        type: "agentNode",
        data: {
          name: "Questions",
          prompt: "Ask, one at a time: how likely they are to recommend us from 0 to 10, what went well, and what we could improve.",
          ...extract("Record the answers as said.", [
            ["score", "number", "The 0 to 10 likelihood to recommend"],
            ["went_well", "string", "What went well"],
            ["to_improve", "string", "What could be improved"]
          ])
        }
      },
      { id: "end", type: "endCall", data: { name: "Thanks", prompt: "Thank them for their time and say goodbye." } }
    ], [
      { source: "start", target: "questions", label: "agreed", condition: "The customer agreed to answer" },
      { source: "questions", target: "end", label: "done", condition: "All three questions were answered or the customer wants to stop" }
    ])
  },
  {
    id: 4,
    template_name: "Inbound receptionist",
    template_description: "Answers incoming calls, finds out who is calling and why, and takes a message for the right person.",
    call_type: "inbound",
    keywords: ["inbound", "receptionist", "reception", "front desk", "answer", "message", "support", "route", "incoming"],
    created_at: CREATED_AT,
    template_json: graph([
      {
        id: "start",
        type: "startCall",
        data: {
          name: "Answer",
          greeting: "Thank you for calling {{business_name}}, how can I help you?",
          prompt: "You are the receptionist of {{business_name}}. Listen to why the caller is calling."
        }
      },
      {
        id: "message",
        type: "agentNode",
        data: {
          name: "Take a message",
          prompt: "Ask for their name, a number to call back and a short message; repeat the number back to confirm it.",
          ...extract("Record the caller's details.", [
            ["caller_name", "string", "The caller's name"],
            ["callback_number", "string", "The number to call back"],
            ["reason", "string", "Why they called, in one sentence"],
            ["urgent", "boolean", "Whether the caller said it is urgent"]
          ])
        }
      },
      { id: "end", type: "endCall", data: { name: "Goodbye", prompt: "Tell them someone will call back soon and say goodbye." } }
    ], [
      { source: "start", target: "message", label: "reason_given", condition: "The caller said why they are calling" },
      { source: "message", target: "end", label: "done", condition: "The message and a callback number were taken" }
    ])
  }
]

/** What the wire shows of a template (without the matching keywords). */
export const asWire = ({ call_type: _c, keywords: _k, ...template }: BuiltIn): WorkflowTemplate => template

/**
 * The template that best fits a description: the call direction first, then the most keywords found
 * in the use case and activity (ties to the lower id).
 */
export const chooseTemplate = (callType: string, useCase: string, activity: string): BuiltIn => {
  const text = `${useCase} ${activity}`.toLowerCase()
  const score = (t: BuiltIn) =>
    (t.call_type === callType.toLowerCase() ? 100 : 0) + t.keywords.filter((k) => text.includes(k)).length
  return BUILT_IN_TEMPLATES.reduce((best, t) => (score(t) > score(best) ? t : best))
}
