/**
 * Failed-login counting per email and per client address over a sliding window, in memory (one
 * process; a restart forgets, which only ever loosens the limit). Pure functions over a state value,
 * so the policy is tested without a clock.
 */
export interface ThrottlePolicy {
  readonly windowMillis: number
  readonly maxFailuresPerEmail: number
  readonly maxFailuresPerAddress: number
}

export const defaultPolicy: ThrottlePolicy = {
  windowMillis: 15 * 60 * 1000,
  maxFailuresPerEmail: 10,
  maxFailuresPerAddress: 50
}

export type ThrottleState = ReadonlyMap<string, ReadonlyArray<number>>

const keysOf = (email: string, address: string) => [`email:${email}`, `addr:${address}`] as const

const recent = (state: ThrottleState, key: string, now: number, policy: ThrottlePolicy) =>
  (state.get(key) ?? []).filter((t) => t > now - policy.windowMillis)

/** Milliseconds until the next attempt is allowed, or 0 when it is allowed now. */
export const retryAfter = (
  state: ThrottleState,
  email: string,
  address: string,
  now: number,
  policy: ThrottlePolicy = defaultPolicy
): number => {
  const [emailKey, addressKey] = keysOf(email, address)
  const wait = (key: string, max: number) => {
    const failures = recent(state, key, now, policy)
    return failures.length >= max ? failures[failures.length - max]! + policy.windowMillis - now : 0
  }
  return Math.max(wait(emailKey, policy.maxFailuresPerEmail), wait(addressKey, policy.maxFailuresPerAddress))
}

export const recordFailure = (
  state: ThrottleState,
  email: string,
  address: string,
  now: number,
  policy: ThrottlePolicy = defaultPolicy
): ThrottleState => {
  const next = new Map(state)
  for (const key of keysOf(email, address)) next.set(key, [...recent(state, key, now, policy), now])
  return next
}

/** A successful login clears the email's failures (not the address's: one address may try many emails). */
export const recordSuccess = (state: ThrottleState, email: string): ThrottleState => {
  const next = new Map(state)
  next.delete(`email:${email}`)
  return next
}
