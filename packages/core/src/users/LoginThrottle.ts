/**
 * Password-guess throttling per account and per client address over a sliding window: pure
 * functions over a state value, so the policy is tested without a clock or a server.
 *
 * An attempt is counted when it starts, before the slow password hash, so parallel guesses cannot all
 * pass the check while the first ones are still hashing; a successful attempt is taken back out.
 * The address limit is much higher than the account limit: many people may share one address (an
 * office behind NAT), and one person's typos must not lock out the others. IPv6 addresses count per
 * /64 network, because one client usually holds a whole /64.
 */
export interface ThrottlePolicy {
  readonly windowMillis: number
  readonly maxFailuresPerAccount: number
  readonly maxFailuresPerAddress: number
}

/** The documented defaults (docs/security.md). */
export const defaultPolicy: ThrottlePolicy = {
  windowMillis: 15 * 60 * 1000,
  maxFailuresPerAccount: 10,
  maxFailuresPerAddress: 100
}

/** Counted attempts (start times) per key; a key with nothing in the window is dropped. */
export type ThrottleState = ReadonlyMap<string, ReadonlyArray<number>>

export const emptyState: ThrottleState = new Map()

/**
 * The address of a request whose client address is not known (a fetch-style host gives none). It is
 * not counted: one shared key would let anyone lock everybody out; the account limit still applies.
 */
export const UNKNOWN_ADDRESS = "unknown"

/** One password guess: the account it targets (a normalized email) and where it came from. */
export interface Attempt {
  readonly account: string
  readonly address: string
  readonly at: number
}

/**
 * The key an address is counted under: IPv4 (also IPv4-mapped IPv6) as is, IPv6 by its first four
 * groups (the /64 network). Anything else (a name, "unknown") as is.
 */
export const addressKey = (address: string): string => {
  const trimmed = address.trim().toLowerCase().replace(/^\[|\]$/g, "").replace(/%.*$/, "")
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(trimmed)
  if (mapped) return mapped[1]!
  if (!trimmed.includes(":")) return trimmed
  const [head = "", tail = ""] = trimmed.split("::")
  const headGroups = head === "" ? [] : head.split(":")
  const tailGroups = tail === "" ? [] : tail.split(":")
  const groups = trimmed.includes("::")
    ? [...headGroups, ...Array(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill("0"), ...tailGroups]
    : headGroups
  return `${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`
}

const keysOf = (attempt: Attempt): ReadonlyArray<string> =>
  attempt.address === UNKNOWN_ADDRESS
    ? [`account:${attempt.account}`]
    : [`account:${attempt.account}`, `address:${addressKey(attempt.address)}`]

const recent = (state: ThrottleState, key: string, now: number, policy: ThrottlePolicy) =>
  (state.get(key) ?? []).filter((t) => t > now - policy.windowMillis)

/** Milliseconds until one more attempt on `key` is allowed (0: allowed now). */
const waitFor = (state: ThrottleState, key: string, max: number, now: number, policy: ThrottlePolicy) => {
  const counted = recent(state, key, now, policy)
  return counted.length >= max ? counted[counted.length - max]! + policy.windowMillis - now : 0
}

/** Above this many keys, starting an attempt also drops every key with nothing left in the window. */
const PRUNE_ABOVE = 10_000

const pruned = (state: Map<string, ReadonlyArray<number>>, now: number, policy: ThrottlePolicy) => {
  if (state.size <= PRUNE_ABOVE) return state
  for (const [key, times] of state) {
    const kept = times.filter((t) => t > now - policy.windowMillis)
    if (kept.length === 0) state.delete(key)
    else state.set(key, kept)
  }
  return state
}

/**
 * Starts an attempt: refused with the wait in milliseconds when the account or the address is at its
 * limit (a refused attempt is not counted, so waiting always ends the block), otherwise counted as a
 * failure until `succeeded` takes it back.
 */
export const begin = (
  state: ThrottleState,
  attempt: Attempt,
  policy: ThrottlePolicy = defaultPolicy
): { readonly retryAfterMillis: number; readonly state: ThrottleState } => {
  const [accountKey, addressKeyed] = keysOf(attempt)
  const retryAfterMillis = Math.max(
    waitFor(state, accountKey!, policy.maxFailuresPerAccount, attempt.at, policy),
    addressKeyed === undefined ? 0 : waitFor(state, addressKeyed, policy.maxFailuresPerAddress, attempt.at, policy)
  )
  if (retryAfterMillis > 0) return { retryAfterMillis, state }
  const next = new Map(state)
  for (const key of keysOf(attempt)) next.set(key, [...recent(state, key, attempt.at, policy), attempt.at])
  return { retryAfterMillis: 0, state: pruned(next, attempt.at, policy) }
}

/**
 * The attempt was right: the account's failures are forgotten (its owner knows the password), and
 * this one attempt no longer counts against the address (the address's other failures stay: one
 * address may try many accounts).
 */
export const succeeded = (state: ThrottleState, attempt: Attempt): ThrottleState => {
  const [accountKey, addressKeyed] = keysOf(attempt)
  const next = new Map(state)
  next.delete(accountKey!)
  if (addressKeyed === undefined) return next
  const times = state.get(addressKeyed) ?? []
  const index = times.lastIndexOf(attempt.at)
  const rest = index < 0 ? times : [...times.slice(0, index), ...times.slice(index + 1)]
  if (rest.length === 0) next.delete(addressKeyed)
  else next.set(addressKeyed, rest)
  return next
}
