/** The login page: email and password; the server answers with the session cookie. */
import { LoginRequest } from "@agentline/api/users/User"
import { Effect, Either } from "effect"
import { type FormEvent, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { describeProblem } from "../../api/errors.js"
import { useAction } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { useSession } from "../../session.js"


export const LoginPage = ({ expired }: { readonly expired: boolean }) => {
  const session = useSession()
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const login = useAction((email: string, password: string) =>
    Effect.flatMap(decodePayload(LoginRequest, { email, password }), (payload) => client.auth.login({ payload }))
  )

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await login.run(email, password)
    // The app shell then shows the password change or goes on to `?next=` (AfterLogin).
    if (Either.isRight(result)) session.signedIn(result.right.user)
  }

  const problem = login.error === undefined ? undefined : describeProblem(login.error)
  return (
    <div className="auth-screen">
      <form className="card auth-card" onSubmit={submit} aria-describedby={problem?.kind === "unauthorized" ? "login-error" : undefined}>
        <p className="brand">Agentline</p>
        <PageTitle>Log in</PageTitle>
        {expired && problem === undefined && (
          <p className="notice" role="status">Your session has expired. Log in again to continue.</p>
        )}
        {problem?.kind === "unauthorized"
          ? <p id="login-error" className="error" role="alert">The email or password is wrong.</p>
          : <ApiError error={login.error} />}
        <label htmlFor="login-email">Email</label>
        <input
          id="login-email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="login-password">Password</label>
        <input
          id="login-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <button type="submit" className="primary" disabled={login.pending}>
          {login.pending ? "Logging in…" : "Log in"}
        </button>
      </form>
    </div>
  )
}
