/**
 * How the numbers a fake carrier dials behave, as tests say: one behaviour per number, or a list of
 * them, one per call to the number (the first call busy, the retry answered), the last repeating.
 */

export interface Callees<Behaviour> {
  /** Calls to `number` go as `behaviour` (a list: one per call, the last repeating). */
  readonly behave: (number: string, behaviour: Behaviour | ReadonlyArray<Behaviour>) => void
  /** How the next call to `number` goes (`undefined`: nothing was said), without counting it. */
  readonly peek: (number: string) => Behaviour | undefined
  /** How the next call to `number` goes, counting it as dialed. */
  readonly dial: (number: string) => Behaviour | undefined
}

export const make = <Behaviour>(): Callees<Behaviour> => {
  const behaviours = new Map<string, ReadonlyArray<Behaviour>>()
  const dialed = new Map<string, number>()
  const peek = (number: string) => {
    const list = behaviours.get(number)
    if (list === undefined || list.length === 0) return undefined
    return list[Math.min(dialed.get(number) ?? 0, list.length - 1)]
  }
  return {
    behave: (number, behaviour) => void behaviours.set(number, Array.isArray(behaviour) ? behaviour : [behaviour as Behaviour]),
    peek,
    dial: (number) => {
      const next = peek(number)
      dialed.set(number, (dialed.get(number) ?? 0) + 1)
      return next
    }
  }
}
