/**
 * How a simulated call ends (pure): the outcome of the `attempt`-th call to a number, from the
 * configuration's rules and a failure draw that depends on the seed, the number and the attempt only.
 */
import type { CallOutcome } from "@agentline/telephony-kit/TelephonyProvider"
import type { TransferOutcome } from "@agentline/telephony-kit/Transfer"
import type { Rule, SimulatorConfig } from "./Config.js"

/** The rule that decides calls to `to`: the exact one, else the longest matching prefix. */
export const ruleFor = (rules: ReadonlyArray<Rule>, to: string): Rule | undefined => {
  let best: Rule | undefined
  for (const rule of rules) {
    if (rule.match === "exact") {
      if (rule.pattern === to) return rule
    } else if (to.startsWith(rule.pattern) && (best === undefined || rule.pattern.length > best.pattern.length)) {
      best = rule
    }
  }
  return best
}

/** The scripted outcome of the `attempt`-th call (0-based) to `to`, before the failure draw. */
export const outcomeFor = (
  config: Pick<SimulatorConfig, "rules" | "default_outcome">,
  to: string,
  attempt: number
): CallOutcome => {
  const rule = ruleFor(config.rules, to)
  if (rule === undefined) return config.default_outcome
  return rule.outcomes[Math.min(attempt, rule.outcomes.length - 1)]!
}

/** FNV-1a: a small, stable string hash to key the draws. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return hash >>> 0
}

/** One step of mulberry32: a uniform number in [0, 1) from a 32-bit state. */
const mulberry32 = (state: number): number => {
  let t = (state + 0x6d2b79f5) >>> 0
  t = Math.imul(t ^ (t >>> 15), t | 1)
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** The failure draw of one call, in [0, 1): a function of the seed, the number and the attempt only. */
export const failureDraw = (seed: number, to: string, attempt: number): number => mulberry32(fnv1a(`${seed}|${to}|${attempt}`))

/** The outcome of the `attempt`-th call (0-based) to `to`, the failure rate applied. */
export const decideOutcome = (config: SimulatorConfig, to: string, attempt: number): CallOutcome =>
  config.failure_rate > 0 && failureDraw(config.seed, to, attempt) < config.failure_rate ? "failed" : outcomeFor(config, to, attempt)

export const answers = (outcome: CallOutcome) => outcome === "completed" || outcome === "voicemail"

/** What the simulator puts in `hangupCause`, in the style of a carrier's cause text. */
export const causes: Record<CallOutcome, string> = {
  completed: "simulated: normal clearing",
  voicemail: "simulated: answered by a machine",
  busy: "simulated: user busy",
  no_answer: "simulated: no answer",
  failed: "simulated: call failed",
  canceled: "simulated: canceled"
}

/** What the callee of `to` says when it answers: its rule's lines, else the configuration's. */
export const linesFor = (config: SimulatorConfig, to: string): ReadonlyArray<string> =>
  ruleFor(config.rules, to)?.says ?? config.callee_lines

/**
 * How a transfer to a target fares, from the outcome a call to that target would have: a person or a
 * machine picks up (the carrier bridges either), or the target is busy, does not answer, or fails.
 */
export const transferOutcomeOf = (outcome: CallOutcome): TransferOutcome =>
  outcome === "completed" || outcome === "voicemail"
    ? "answered"
    : outcome === "busy" || outcome === "no_answer"
    ? outcome
    : "failed"

/** What the simulator puts in a transfer result's `cause`. */
export const transferCauses: Record<TransferOutcome, string> = {
  answered: "simulated: the target answered, bridged",
  busy: "simulated: target busy",
  no_answer: "simulated: the target did not answer",
  failed: "simulated: the transfer failed"
}
