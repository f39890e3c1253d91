/**
 * A call's time in a fake carrier: the provider's seconds scaled to real milliseconds (tests play a
 * minute-long call in a second), timers that all stop when the call ends, and waits that end early
 * then, so a call's script never runs on after its end.
 */

export interface Timeline {
  /** Real milliseconds of `seconds` of the provider's time. */
  readonly millis: (seconds: number) => number
  /** Waits `seconds` of the provider's time, or until `stop`. */
  readonly after: (seconds: number) => Promise<void>
  /** Runs `action` after `seconds`, unless stopped first. */
  readonly schedule: (seconds: number, action: () => void) => void
  /** Clears every timer and ends every wait. */
  readonly stop: () => void
}

export const make = (secondMillis: number): Timeline => {
  const timers: Array<ReturnType<typeof setTimeout>> = []
  const sleepers = new Set<() => void>()
  const millis = (seconds: number) => seconds * secondMillis
  return {
    millis,
    after: (seconds) =>
      new Promise<void>((resolve) => {
        const wake = () => {
          sleepers.delete(wake)
          resolve()
        }
        sleepers.add(wake)
        timers.push(setTimeout(wake, millis(seconds)))
      }),
    schedule: (seconds, action) => void timers.push(setTimeout(action, millis(seconds))),
    stop: () => {
      for (const timer of timers.splice(0)) clearTimeout(timer)
      for (const wake of [...sleepers]) wake()
    }
  }
}

/** A value to come, settled once: `promise` resolves with the first `resolve`. */
export interface Latch<A> {
  readonly promise: Promise<A>
  readonly resolve: (value: A) => void
  readonly isDone: () => boolean
}

export const latch = <A>(): Latch<A> => {
  let done = false
  let settle!: (value: A) => void
  const promise = new Promise<A>((resolve) => (settle = resolve))
  return {
    promise,
    resolve: (value) => {
      if (done) return
      done = true
      settle(value)
    },
    isDone: () => done
  }
}
