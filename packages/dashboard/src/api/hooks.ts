/**
 * Running typed-client calls from React. `useApi` loads data when a component mounts (and when its
 * dependencies change); `useAction` runs a write on demand. Both keep loading/error state, interrupt
 * the call when the component unmounts, and report session problems to the `SessionEvents` listener
 * (the app shell sends 401s back to the login page and a pending password change to its form).
 */
import { Effect, Either } from "effect"
import { type DependencyList, useCallback, useEffect, useRef, useState } from "react"
import { describeProblem } from "./errors.js"

type SessionListener = (problem: "unauthorized" | "password-change-required") => void
let sessionListener: SessionListener | undefined

/** Registered once by the session provider; a failing call tells it when the session is gone. */
export const onSessionProblem = (listener: SessionListener | undefined) => {
  sessionListener = listener
}

const notifySession = (error: unknown) => {
  const kind = describeProblem(error).kind
  if (kind === "unauthorized" || kind === "password-change-required") sessionListener?.(kind)
}

/** Runs a client call; never rejects (the failure is in the Either). Aborting the signal interrupts it. */
export const runApi = async <A, E>(
  effect: Effect.Effect<A, E>,
  options: { readonly signal?: AbortSignal; readonly reportSession?: boolean } = {}
): Promise<Either.Either<A, E | unknown>> => {
  try {
    const result = await Effect.runPromise(Effect.either(effect), options.signal ? { signal: options.signal } : undefined)
    if (Either.isLeft(result) && options.reportSession !== false) notifySession(result.left)
    return result
  } catch (defect) {
    return Either.left(defect)
  }
}

export interface Loaded<A> {
  readonly data: A | undefined
  readonly error: unknown
  readonly loading: boolean
  /** Loads again (after a write, for example); the previous data stays shown meanwhile. */
  readonly reload: () => void
}

export const useApi = <A, E>(load: () => Effect.Effect<A, E>, deps: DependencyList): Loaded<A> => {
  const [state, setState] = useState<{ data: A | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true
  })
  const [generation, setGeneration] = useState(0)
  useEffect(() => {
    const controller = new AbortController()
    setState((previous) => ({ ...previous, loading: true }))
    void runApi(load(), { signal: controller.signal }).then((result) => {
      if (controller.signal.aborted) return
      setState((previous) =>
        Either.isRight(result)
          ? { data: result.right, error: undefined, loading: false }
          : { data: previous.data, error: result.left, loading: false }
      )
    })
    return () => controller.abort()
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, generation])
  const reload = useCallback(() => setGeneration((n) => n + 1), [])
  return { ...state, reload }
}

export interface Action<Args extends ReadonlyArray<unknown>, A> {
  /** Runs the call; resolves with its result (Right) or failure (Left), which is also kept in `error`. */
  readonly run: (...args: Args) => Promise<Either.Either<A, unknown>>
  readonly pending: boolean
  readonly error: unknown
  readonly reset: () => void
}

export const useAction = <Args extends ReadonlyArray<unknown>, A, E>(
  call: (...args: Args) => Effect.Effect<A, E>
): Action<Args, A> => {
  const [pending, setPending] = useState(false)
  const [error, setError] = useState<unknown>(undefined)
  const mounted = useRef(true)
  useEffect(() => {
    mounted.current = true
    return () => {
      mounted.current = false
    }
  }, [])
  const callRef = useRef(call)
  callRef.current = call
  const run = useCallback(async (...args: Args) => {
    setPending(true)
    setError(undefined)
    const result = await runApi(callRef.current(...args))
    if (mounted.current) {
      setPending(false)
      if (Either.isLeft(result)) setError(result.left)
    }
    return result
  }, [])
  const reset = useCallback(() => setError(undefined), [])
  return { run, pending, error, reset }
}
