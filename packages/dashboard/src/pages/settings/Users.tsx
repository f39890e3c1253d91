/**
 * Settings → Users (administrators): the organization's users and creating one with a temporary
 * password and a role. The new user must choose their own password at first login.
 */
import { CreateUserRequest, type Role } from "@agentline/api/users/User"
import { Effect, Either } from "effect"
import { type FormEvent, useState } from "react"
import { client, decodePayload } from "../../api/client.js"
import { useAction, useApi } from "../../api/hooks.js"
import { ApiError, fieldError } from "../../components/ApiError.js"
import { formatTime } from "../../components/format.js"

export const UsersPage = () => {
  const users = useApi(() => client.users.list(), [])
  const [email, setEmail] = useState("")
  const [password, setPassword] = useState("")
  const [role, setRole] = useState<Role>("member")
  const [createdEmail, setCreatedEmail] = useState<string | undefined>(undefined)
  const create = useAction((email: string, password: string, role: Role) =>
    Effect.flatMap(decodePayload(CreateUserRequest, { email, password, role }), (payload) => client.users.create({ payload }))
  )

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
      <ApiError error={users.error} title="The users could not be loaded" />
      {users.data === undefined
        ? users.loading && <p className="loading" role="status">Loading users…</p>
        : (
          <div className="table-wrap">
            <table className="stack" aria-labelledby="users-heading">
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Role</th>
                  <th scope="col">Password</th>
                  <th scope="col">Added</th>
                </tr>
              </thead>
              <tbody>
                {users.data.users.map((user) => (
                  <tr key={user.id}>
                    <td data-label="Email">{user.email}</td>
                    <td data-label="Role">{user.role === "admin" ? "Administrator" : "Member"}</td>
                    <td data-label="Password">{user.must_change_password ? "Temporary (not changed yet)" : "Set"}</td>
                    <td data-label="Added">{formatTime(user.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </>
  )
}
