/**
 * Settings → Users (administrators): the organization's users; adding one with a temporary password and
 * a role (they choose their own password at first login); changing a role; deactivating, reactivating
 * and removing a user; and resetting a password (a new temporary password, shown once). The server
 * refuses what would leave the organization without an active administrator, and an administrator
 * acting on their own account; its message is shown.
 */
import type { UserId } from "@agentline/api/Ids"
import { CreateUserRequest, type Role, type User } from "@agentline/api/users/User"
import { Effect, Either } from "effect"
import { type FormEvent, useEffect, useRef, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import { ConfirmButton } from "../../components/Confirm.js"
import { CopyButton } from "../../components/CopyButton.js"
import { formatTime } from "../../components/format.js"
import { useUser } from "../../session.js"

interface Reset {
  readonly email: string
  readonly password: string
}

const roleName = (role: Role) => (role === "admin" ? "Administrator" : "Member")

export const UsersPage = () => {
  const me = useUser()
  const users = useApi(() => client.users.list(), [])
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [role, setRole] = useState<Role>("member")
  const [createdEmail, setCreatedEmail] = useState<string | undefined>(undefined)
  const [announcement, setAnnouncement] = useState("")
  const [reset, setReset] = useState<Reset | undefined>(undefined)
  const resetHeading = useRef<HTMLHeadingElement>(null)
  const create = useAction((email: string, password: string, role: Role) =>
    Effect.flatMap(decodePayload(CreateUserRequest, { email, password, role }), (payload) => client.users.create({ payload }))
  )
  // One action for every change of a row, so the page shows one error: the last change's.
  const change = useAction((user: User, what: "role" | "deactivate" | "reactivate" | "remove" | "reset", newRole?: Role) => {
    const path = { user_id: user.id }
    switch (what) {
      case "role":
        return Effect.map(client.users.changeRole({ path, payload: { role: newRole ?? user.role } }), () => `${user.email} is now ${roleName(newRole ?? user.role).toLowerCase()}.`)
      case "deactivate":
        return Effect.map(client.users.deactivate({ path }), () => `Deactivated ${user.email}: their sessions ended and they cannot log in.`)
      case "reactivate":
        return Effect.map(client.users.reactivate({ path }), () => `Reactivated ${user.email}.`)
      case "remove":
        return Effect.map(client.users.remove({ path }), () => `Removed ${user.email}.`)
      case "reset":
        return Effect.map(client.users.resetPassword({ path }), (answer) => {
          setReset({ email: user.email, password: answer.temporary_password })
          return `Reset the password of ${user.email}.`
        })
    }
  })
  const [busy, setBusy] = useState<UserId | undefined>(undefined)

  useEffect(() => {
    if (reset !== undefined) resetHeading.current?.focus()
  }, [reset])

  const act = async (user: User, what: "role" | "deactivate" | "reactivate" | "remove" | "reset", newRole?: Role) => {
    setBusy(user.id)
    setAnnouncement("")
    const result = await change.run(user, what, newRole)
    setBusy(undefined)
    if (Either.isRight(result)) setAnnouncement(result.right)
    users.reload()
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setCreatedEmail(undefined)
    const result = await create.run(email, password, role)
    if (Either.isRight(result)) {
      setCreatedEmail(result.right.email)
      setEmail("")
      setPassword("")
      setRole("member")
      users.reload()
    }
  }

  const emailError = fieldError(create.error, "email")
  const passwordError = fieldError(create.error, "password")
  return (
    <>
      <h2>Users</h2>
      {reset !== undefined && (
        <div className="card success-card" aria-labelledby="reset-heading">
          <h3 id="reset-heading" ref={resetHeading} tabIndex={-1}>Temporary password of {reset.email}</h3>
          <p>
            Copy it now: it is shown only once. Give it to them yourself; they must choose their own password when they next log in.
          </p>
          <div className="secret">
            <label htmlFor="temporary-password" className="visually-hidden">Temporary password of {reset.email}</label>
            <input id="temporary-password" readOnly value={reset.password} onFocus={(e) => e.currentTarget.select()} />
            <CopyButton text={reset.password} label="Copy password" fallbackInputId="temporary-password" />
          </div>
          <div className="actions">
            <button type="button" onClick={() => setReset(undefined)}>I have copied it</button>
          </div>
        </div>
      )}
      <form className="card" onSubmit={submit} aria-labelledby="create-user-heading">
        <h3 id="create-user-heading">Add a user</h3>
        <p className="hint">
          Give them the temporary password yourself; they choose their own password when they first log in.
        </p>
        {createdEmail !== undefined && (
          <p className="success" role="status">
            Added {createdEmail}. They must change the temporary password at first login.
          </p>
        )}
        <ApiError error={create.error} title="The user was not added" />
        <label htmlFor="user-email">Email</label>
        <input
          id="user-email"
          type="email"
          required
          autoComplete="off"
          aria-invalid={emailError !== undefined}
          value={email}
          onChange={(e) => setEmail(e.target.value)}
        />
        <label htmlFor="user-password">Temporary password</label>
        <input
          id="user-password"
          type="text"
          required
          minLength={8}
          autoComplete="off"
          spellCheck={false}
          aria-invalid={passwordError !== undefined}
          aria-describedby="user-password-hint"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <p id="user-password-hint" className="hint">At least 8 characters.</p>
        <label htmlFor="user-role">Role</label>
        <select id="user-role" value={role} onChange={(e) => setRole(e.target.value as Role)} aria-describedby="user-role-hint">
          <option value="member">Member</option>
          <option value="admin">Administrator</option>
        </select>
        <p id="user-role-hint" className="hint">
          Administrators also manage users, telephony, the organization's limits and others' API keys.
        </p>
        <div className="actions">
          <button type="submit" className="primary" disabled={create.pending}>
            {create.pending ? "Adding…" : "Add user"}
          </button>
        </div>
      </form>

      <h3 id="users-heading">Users of the organization</h3>
      <p className="hint">
        A deactivated user cannot log in and their API keys stop working until reactivated; removing a user is for good (their email
        can be added again). The organization always keeps one active administrator.
      </p>
      <p role="status" className={announcement === "" ? "visually-hidden" : "success"}>{announcement}</p>
      <ApiError error={users.error} title="The users could not be loaded" />
      <ApiError error={change.error} title="The user was not changed" />
      {users.data === undefined
        ? users.loading && <p className="loading" role="status">Loading users…</p>
        : (
          <div className="table-wrap">
            <table className="stack users-table" aria-labelledby="users-heading">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Password</th>
                  <th scope="col">Added</th>
                  <th scope="col"><span className="visually-hidden">Actions</span></th>
                </tr>
              </thead>
              <tbody>
                {users.data.users.map((user) => {
                  const self = user.id === me.id
                  const pending = busy === user.id
                  return (
                    <tr key={user.id}>
                      <td data-label="Email">{user.email}{self && <span className="hint"> (you)</span>}</td>
                      <td data-label="Role">
                        <label htmlFor={`role-${user.id}`} className="visually-hidden">Role of {user.email}</label>
                        <select
                          id={`role-${user.id}`}
                          value={user.role}
                          disabled={pending}
                          onChange={(e) => act(user, "role", e.target.value as Role)}
                        >
                          <option value="member">Member</option>
                          <option value="admin">Administrator</option>
                        </select>
                      </td>
                      <td data-label="Status">{user.is_active ? "Active" : `Deactivated ${formatTime(user.deactivated_at)}`}</td>
                      <td data-label="Password">{user.must_change_password ? "Temporary (not changed yet)" : "Set"}</td>
                      <td data-label="Added">{formatTime(user.created_at)}</td>
                      <td>
                        {self
                          ? <span className="hint">Change your password under Password.</span>
                          : (
                            <span className="inline-confirm">
                              {user.is_active
                                ? (
                                  <ConfirmButton
                                    label="Deactivate"
                                    subject={user.email}
                                    confirm={`Yes, deactivate ${user.email}`}
                                    disabled={pending}
                                    onConfirm={() => act(user, "deactivate")}
                                  />
                                )
                                : (
                                  <button type="button" disabled={pending} onClick={() => act(user, "reactivate")}>
                                    Reactivate<span className="visually-hidden"> {user.email}</span>
                                  </button>
                                )}
                              <ConfirmButton
                                label="Reset password"
                                subject={user.email}
                                confirm={`Yes, reset the password of ${user.email}`}
                                disabled={pending}
                                onConfirm={() => act(user, "reset")}
                              />
                              <ConfirmButton
                                label="Remove"
                                subject={user.email}
                                confirm={`Yes, remove ${user.email}`}
                                disabled={pending}
                                onConfirm={() => act(user, "remove")}
                              />
                            </span>
                          )}
                      </td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          </div>
        )}
    </>
  )
}
