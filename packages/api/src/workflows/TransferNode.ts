/**
 * The `transfer` node type: the conversation hands the caller to a person (`docs/transfer.md`). An
 * edge leads into it like into an end node; when the agent takes that edge it says `message`, asks
 * the provider to transfer the call to `target`, and its part of the call ends there.
 */
import { Schema } from "effect"
import { choice, nodeType, NonEmptyString, number, type Property, requiredText, says, text } from "./NodeSpec.js"

/** E.164: `+`, then 8 to 15 digits, the first not 0. */
export const E164_TARGET = /^\+[1-9][0-9]{7,14}$/
/** A SIP URI with a user and a host (`sip:desk@pbx.example.com`, `sips:...`, an optional port and parameters). */
export const SIP_TARGET = /^sips?:[^@\s:;]+@[A-Za-z0-9.-]+(:[0-9]{1,5})?(;\S*)?$/

/** Whether `target` is something a transfer can dial. */
export const isTransferTarget = (target: string): boolean => E164_TARGET.test(target.trim()) || SIP_TARGET.test(target.trim())

const TARGET_MESSAGE = "must be a phone number in E.164 form (+15551234567) or a SIP URI (sip:desk@pbx.example.com)"

const target: Property<Schema.Schema<string>> = (() => {
  const base = requiredText({
    display_name: "Transfer to",
    description: "The number (E.164, e.g. +15551234567) or SIP URI (sip:desk@pbx.example.com) the caller is handed to.",
    llm_hint: "E.164 with the leading + or a sip:/sips: URI; anything else is refused with 422.",
    placeholder: "+15551234567"
  })
  return {
    spec: { ...base.spec, pattern: `${E164_TARGET.source}|${SIP_TARGET.source}` },
    field: NonEmptyString.pipe(Schema.filter(isTransferTarget)).annotations(says(TARGET_MESSAGE))
  }
})()

/** The longest a target may ring, in seconds. */
export const MAX_TRANSFER_TIMEOUT = 120
export const DEFAULT_TRANSFER_TIMEOUT = 30

export const Transfer = nodeType({
  name: "transfer",
  display_name: "Transfer to a person",
  description: "The agent says a sentence, then hands the caller to a phone number or SIP address; its part of the call ends there.",
  llm_hint: "No outgoing edges; reached by an edge like an end node. `mode` warm: the person who answers hears `briefing` " +
    "(or a summary of the gathered context) before the caller joins; done as cold on providers without warm transfers (the " +
    "run's logs.transfer says which was done). The run records the result: answered, busy, no_answer or failed.",
  category: "call_node",
  icon: "PhoneForwarded",
  properties: {
    name: requiredText({ display_name: "Name", description: "Shown on the canvas and in the run's events (e.g. 'Sales desk')." }),
    target,
    message: text({
      type: "mention_textarea",
      display_name: "Said first",
      description:
        "What the agent says before the transfer (e.g. 'Let me put you through to a colleague'); {{variable}} inserts a value of the call."
    }),
    mode: choice(["cold", "warm"], {
      display_name: "Mode",
      description: "Cold: the caller is put through at once. Warm: the person who answers hears the briefing first, " +
        "while the caller waits; done as cold where the provider cannot (docs/transfer.md).",
      labels: { cold: "Cold", warm: "Warm" },
      default: "cold"
    }),
    briefing: text({
      type: "mention_textarea",
      display_name: "Briefing (warm)",
      description: "What the person who answers a warm transfer is told before the caller joins; {{variable}} inserts a value " +
        "of the call. Empty: a summary of what the call gathered."
    }),
    timeout: number({
      display_name: "Ring for (seconds)",
      description: "How long the target may ring before the transfer counts as not answered.",
      min: 5,
      max: MAX_TRANSFER_TIMEOUT,
      fractional: false,
      default: DEFAULT_TRANSFER_TIMEOUT
    })
  },
  examples: [{
    name: "sales_desk",
    data: { name: "Sales desk", target: "+15551234567", message: "Let me put you through to our sales team.", mode: "cold", timeout: 30 }
  }, {
    name: "warm_support",
    data: {
      name: "Support desk",
      target: "sip:desk@pbx.example.com",
      message: "One moment, I am getting a colleague.",
      mode: "warm",
      briefing: "A caller, {{name}}, needs help with {{topic}}.",
      timeout: 30
    }
  }],
  graph: { max_outgoing: 0, why: { outgoing: "the agent's part of the call ends there" } }
})
