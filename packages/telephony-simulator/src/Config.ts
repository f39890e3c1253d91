/**
 * The simulator's configuration: how its calls end (rules per number and attempt, a seeded failure
 * rate), how long they ring and talk, its account (the inbound routing key) and, optionally, a
 * webhook secret that makes it check callback signatures like a real carrier.
 */
import { CallOutcome, type ProviderField } from "@agentline/telephony-kit/TelephonyProvider"
import { Schema } from "effect"

const bounded = (name: string, max: number) =>
  Schema.Number.pipe(Schema.between(0, max, { message: () => `${name} must be a number from 0 to ${max}` }))

export const Rule = Schema.Struct({
  match: Schema.Literal("prefix", "exact"),
  pattern: Schema.String.pipe(Schema.minLength(1, { message: () => "pattern must not be empty" })),
  outcomes: Schema.NonEmptyArray(CallOutcome),
  /** What the callee says on an answered call to these numbers (replaces `callee_lines`). */
  says: Schema.optional(Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000))).pipe(Schema.maxItems(50)))
})
export type Rule = typeof Rule.Type

export const SimulatorConfig = Schema.Struct({
  default_outcome: Schema.optionalWith(CallOutcome, { default: () => "completed" as const }),
  rules: Schema.optionalWith(Schema.Array(Rule).pipe(Schema.maxItems(10_000)), { default: () => [] }),
  ring_seconds: Schema.optionalWith(bounded("ring_seconds", 600), { default: () => 2 }),
  talk_seconds: Schema.optionalWith(bounded("talk_seconds", 86_400), { default: () => 5 }),
  failure_rate: Schema.optionalWith(bounded("failure_rate", 1), { default: () => 0 }),
  seed: Schema.optionalWith(Schema.Int, { default: () => 1 }),
  place_call_latency_ms: Schema.optionalWith(
    Schema.Int.pipe(Schema.between(0, 60_000, { message: () => "place_call_latency_ms must be an integer from 0 to 60000" })),
    { default: () => 0 }
  ),
  account_id: Schema.optionalWith(
    Schema.Trim.pipe(Schema.nonEmptyString({ message: () => "account_id must not be empty" })),
    { nullable: true, default: () => "simulator" }
  ),
  webhook_secret: Schema.optionalWith(Schema.Trim, { exact: true, nullable: true }),
  callee_lines: Schema.optionalWith(
    Schema.Array(Schema.String.pipe(Schema.minLength(1, { message: () => "a callee line must not be empty" }), Schema.maxLength(1000)))
      .pipe(Schema.maxItems(50)),
    { default: () => [] }
  )
}).annotations({ parseOptions: { errors: "all", onExcessProperty: "ignore" } })
export type SimulatorConfig = typeof SimulatorConfig.Type

/** The Rules field's example, valid JSON a person can paste into the field as it is. */
export const RULES_EXAMPLE = '[{"match": "prefix", "pattern": "+1415", "outcomes": ["busy", "completed"]}]'

export const fields: ReadonlyArray<ProviderField> = [
  {
    name: "default_outcome",
    label: "Default outcome",
    type: "select",
    required: false,
    sensitive: false,
    description: "The outcome of calls no rule matches (default completed)",
    options: CallOutcome.literals.map((o) => ({ value: o, label: o }))
  },
  {
    name: "rules",
    label: "Rules",
    type: "json",
    required: false,
    sensitive: false,
    description: `A JSON list of rules, for example ${RULES_EXAMPLE}. "match" is "prefix" or "exact"; "outcomes" has one ` +
      "outcome per attempt to a number, the last one repeating; an exact rule wins over the longest matching prefix. Patterns match " +
      "the dialed address as normalized (E.164 with +)"
  },
  { name: "ring_seconds", label: "Ring seconds", type: "number", required: false, sensitive: false, description: "Ringing time before the outcome (default 2)" },
  { name: "talk_seconds", label: "Talk seconds", type: "number", required: false, sensitive: false, description: "Length of answered calls (default 5)" },
  { name: "failure_rate", label: "Failure rate", type: "number", required: false, sensitive: false, description: "Share of calls that fail, 0 to 1 (default 0)" },
  { name: "seed", label: "Seed", type: "number", required: false, sensitive: false, description: "Seed of the failure draws (default 1)" },
  {
    name: "place_call_latency_ms",
    label: "Ring latency (ms)",
    type: "number",
    required: false,
    sensitive: false,
    description: "Delay between a call being placed and it ringing (default 0)"
  },
  {
    name: "account_id",
    label: "Account ID",
    type: "text",
    required: false,
    sensitive: false,
    description: "The simulated account: (provider, account id, number) is unique across organizations (default simulator)"
  },
  {
    name: "webhook_secret",
    label: "Webhook secret",
    type: "password",
    required: false,
    sensitive: true,
    description: "When set, callbacks must carry X-Simulator-Signature (HMAC-SHA256 of the full URL and the body); otherwise any is accepted"
  },
  {
    name: "callee_lines",
    label: "Callee lines",
    type: "string-array",
    required: false,
    sensitive: false,
    description: "What the simulated person says on answered calls, a line per turn (a rule's says replaces it). With lines, an " +
      "answered call connects to the agent's media stream and lasts until the agent or the callee hangs up (at most 10 " +
      "minutes; talk_seconds does not apply); without, no audio is exchanged. A line starting with [interrupt] is said " +
      "over the agent, 0.7 s into its turn (a barge-in)"
  }
]

