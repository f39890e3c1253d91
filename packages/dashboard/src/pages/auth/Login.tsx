/** The login page: email and password; the server answers with the session cookie. */
import { Either } from "effect"
import { type FormEvent, useState } from "react"
import { useNavigate, useSearchParams } from "react-router"
import { client } from "../../api/client.js"
import { describeProblem } from "../../api/errors.js"
import { useAction } from "../../api/hooks.js"
import { PageTitle } from "../../components/PageTitle.js"
import { safeNext } from "../../paths.js"
import { useSession } from "../../session.js"


export const LoginPage = ({ expired }: { readonly expired: boolean }) => {
  const session = useSession()
  const navigate = useNavigate()
  const [params] = useSearchParams()
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const login = useAction((email: string, password: string) => client.auth.login({ payload: { email, password } }))

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const result = await login.run(email, password)
    if (Either.isRight(result)) {
      const next = safeNext(params.get("next"))
      session.signedIn(result.right.user)
      navigate(result.right.user.must_change_password ? `/change-password?next=${encodeURIComponent(next)}` : next, {
        replace: true
      })
    }
  }

  const problem = login.error === undefined ? undefined : describeProblem(login.error)
  return (
    <div className="auth-screen">
      <form className="card auth-card" onSubmit={submit} aria-describedby={problem ? "login-error" : undefined}>
        <p className="brand">Agentline</p>
        <PageTitle>Log in</PageTitle>
        {expired && problem === undefined && (
          <p className="notice" role="status">Your session has expired. Log in again to continue.</p>
        )}
        {problem !== undefined && (
          <p id="login-error" className="error" role="alert">
            {problem.kind === "unauthorized" ? "The email or password is wrong." : problem.message}
          </p>
        )}
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
