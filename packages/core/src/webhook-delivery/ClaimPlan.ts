/**
 * Which due deliveries one look at the outbox claims: the pure half of the delivery loop's batch.
 *
 * The outbox answers the deliveries that are due and first in line of their endpoint and ordering key;
 * the loop then claims as many of them as fit in its free slots, all in one statement. A plan keeps
 * the outbox's order, fills at most `maxInFlight` attempts in all and `maxInFlightPerSlot` per slot (an
 * endpoint, or a host for workflow nodes' requests), and never takes a second delivery of an ordering
 * key, nor one whose key has an attempt in flight: a run's next event is not sent before its previous
 * one is settled, even if a stale read of the outbox offered it.
 */

/** A due delivery as the plan sees it. */
export interface Candidate {
  /** Where its attempts are counted (`slotOf`). */
  readonly slot: string
  /** Deliveries of one key go out one after the other (`orderingKeyOf`). */
  readonly key: string
}

/** What this process has in flight. */
export interface InFlight {
  readonly total: number
  readonly perSlot: ReadonlyMap<string, number>
  readonly keys: ReadonlySet<string>
}

export interface Limits {
  readonly maxInFlight: number
  readonly maxInFlightPerSlot: number
}

/** The candidates to claim, in the order given. */
export const planClaims = <C extends Candidate>(due: ReadonlyArray<C>, inFlight: InFlight, limits: Limits): ReadonlyArray<C> => {
  const chosen: Array<C> = []
  const planned = new Map<string, number>()
  const keys = new Set<string>()
  for (const candidate of due) {
    if (inFlight.total + chosen.length >= limits.maxInFlight) break
    const taken = (inFlight.perSlot.get(candidate.slot) ?? 0) + (planned.get(candidate.slot) ?? 0)
    if (taken >= limits.maxInFlightPerSlot) continue
    if (inFlight.keys.has(candidate.key) || keys.has(candidate.key)) continue
    planned.set(candidate.slot, (planned.get(candidate.slot) ?? 0) + 1)
    keys.add(candidate.key)
    chosen.push(candidate)
  }
  return chosen
}

/** Where a delivery's attempts are counted: its endpoint, or the host of a workflow node's request. */
export const slotOf = (delivery: { readonly endpoint_id: number | null; readonly url: string }): string => {
  if (delivery.endpoint_id !== null) return `endpoint:${delivery.endpoint_id}`
  try {
    return `host:${new URL(delivery.url).host}`
  } catch {
    return "host:"
  }
}

/**
 * The key that orders a delivery: its endpoint's and its own ordering key. A workflow node's request
 * (no endpoint) is ordered with nothing, as the outbox's due query has it: its key is its own.
 */
export const orderingKeyOf = (
  delivery: { readonly id: number; readonly endpoint_id: number | null; readonly ordering_key: string }
): string => delivery.endpoint_id === null ? `delivery:${delivery.id}` : `endpoint:${delivery.endpoint_id}:${delivery.ordering_key}`
