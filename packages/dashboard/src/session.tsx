/**
 * Who is logged in, as the dashboard knows it. The session itself is the server's HttpOnly cookie, which
 * scripts cannot read: the dashboard asks `GET /auth/me` at start, and any call answering 401 later
 * means the session expired or was revoked (the shell then shows the login page with a message).
 */
import type { User } from "@agentline/api/users/User"
import { Either } from "effect"
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react"
import { client } from "./api/client.js"
import { describeProblem } from "./api/errors.js"
import { onSessionProblem, runApi } from "./api/hooks.js"

export type SessionState =
  | { readonly status: "loading" }
  /**
   * `visit`: no session when the page loaded; `expired`: a session of this page is no longer accepted
   * by the server; `logged-out`: the person logged out.
   */
  | { readonly status: "signed-out"; readonly reason: SignedOutReason }
  | { readonly status: "must-change-password"; readonly user: User | undefined }
  | { readonly status: "signed-in"; readonly user: User }

export type SignedOutReason = "visit" | "expired" | "logged-out"

export interface Session {
  readonly state: SessionState
  /** After a successful login or password change. */
  readonly signedIn: (user: User) => void
  /** After logging out. */
  readonly signedOut: () => void
}

const SessionContext = createContext<Session | undefined>(undefined)

export const useSession = (): Session => {
  const session = useContext(SessionContext)
  if (session === undefined) throw new Error("useSession outside <SessionProvider>")
  return session
}

/** The logged-in user; only inside the signed-in part of the app. */
export const useUser = (): User => {
  const { state } = useSession()
  if (state.status !== "signed-in") throw new Error("useUser outside the signed-in part of the app")
  return state.user
}

export const SessionProvider = ({ children }: { readonly children: ReactNode }) => {
  const [state, setState] = useState<SessionState>({ status: "loading" })

  useEffect(() => {
    const controller = new AbortController()
    void runApi(client.auth.me(), { signal: controller.signal, reportSession: false }).then((result) => {
      if (controller.signal.aborted) return
      if (Either.isRight(result)) {
        setState(result.right.must_change_password
          ? { status: "must-change-password", user: result.right }
          : { status: "signed-in", user: result.right })
      } else if (describeProblem(result.left).kind === "password-change-required") {
        setState({ status: "must-change-password", user: undefined })
      } else {
        setState({ status: "signed-out", reason: "visit" })
      }
    })
    return () => controller.abort()
  }, [])

  const signedIn = useCallback((user: User) => {
    setState(user.must_change_password ? { status: "must-change-password", user } : { status: "signed-in", user })
  }, [])
  const signedOut = useCallback(() => setState({ status: "signed-out", reason: "logged-out" }), [])

  useEffect(() => {
    onSessionProblem((problem) =>
      setState((previous) => {
        if (problem === "password-change-required") {
          return { status: "must-change-password", user: "user" in previous ? previous.user : undefined }
        }
        return previous.status === "signed-out"
          ? previous
          : { status: "signed-out", reason: previous.status === "loading" ? "visit" : "expired" }
      })
    )
    return () => onSessionProblem(undefined)
  }, [])

  const session = useMemo(() => ({ state, signedIn, signedOut }), [state, signedIn, signedOut])
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}
