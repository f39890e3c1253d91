/**
 * The password change: forced after the first login with a temporary password (the API answers 403
 * `password_change_required` to everything else until then), and available from Settings.
 */
import { ChangePasswordRequest } from "@agentline/api/users/User"
import { Effect, Either } from "effect"
import { type FormEvent, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { useAction } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { useSession } from "../../session.js"
import { LogoutButton } from "./Logout.js"

export const ChangePasswordPage = ({ forced }: { readonly forced: boolean }) => {
  const session = useSession()
  const [current, setCurrent] = useState("")
  const [next, setNext] = useState("")
  const [confirm, setConfirm] = useState("")
  const [mismatch, setMismatch] = useState(false)
  const [done, setDone] = useState(false)
  const change = useAction((current_password: string, new_password: string) =>
    Effect.flatMap(
      decodePayload(ChangePasswordRequest, { current_password, new_password }),
      (payload) => client.auth.changePassword({ payload })
    )
  )

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    if (next !== confirm) {
      setMismatch(true)
      return
    }
    setMismatch(false)
    const result = await change.run(current, next)
    if (Either.isRight(result)) {
      setCurrent("")
      setNext("")
      setConfirm("")
      setDone(true)
      // When forced, the app shell then goes on to `?next=` (AfterLogin).
      session.signedIn(result.right)
    }
  }

  const newPasswordError = fieldError(change.error, "new_password")
  const form = (
    <form className={forced ? "card auth-card" : "card"} onSubmit={submit} noValidate={false}>
      {forced && <p className="brand">Agentline</p>}
      <PageTitle>{forced ? "Choose a new password" : "Change password"}</PageTitle>
      {forced && (
        <p className="notice" role="status">
          Your password was set by an administrator. Choose your own password to continue.
        </p>
      )}
      {done && !forced && <p className="success" role="status">Your password was changed. Your other sessions were logged out.</p>}
      <ApiError error={change.error} title="The password was not changed" />
      <label htmlFor="current-password">{forced ? "Temporary password" : "Current password"}</label>
      <input
        id="current-password"
        type="password"
        autoComplete="current-password"
        required
        value={current}
        onChange={(e) => setCurrent(e.target.value)}
      />
      <label htmlFor="new-password">New password</label>
      <input
        id="new-password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        aria-describedby="new-password-hint"
        aria-invalid={newPasswordError !== undefined}
        value={next}
        onChange={(e) => setNext(e.target.value)}
      />
      <p id="new-password-hint" className="hint">At least 8 characters.</p>
      <label htmlFor="confirm-password">Repeat the new password</label>
      <input
        id="confirm-password"
        type="password"
        autoComplete="new-password"
        required
        aria-invalid={mismatch}
        aria-describedby={mismatch ? "confirm-password-error" : undefined}
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
      />
      {mismatch && <p id="confirm-password-error" className="field-error" role="alert">The two new passwords differ.</p>}
      <div className="actions">
        <button type="submit" className="primary" disabled={change.pending}>
          {change.pending ? "Saving…" : "Change password"}
        </button>
        {forced && <LogoutButton />}
      </div>
    </form>
  )
  return forced ? <div className="auth-screen">{form}</div> : form
}
