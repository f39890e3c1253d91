/**
 * Settings: the person's API keys and password; for administrators also the organization's users and
 * its concurrency limit; for everyone the organization's webhooks, stored credentials, do-not-call list
 * and recordings (`pages/manage/`).
 */
import { Navigate, NavLink, Route, Routes } from "react-router"
import { PageTitle } from "../../components/PageTitle.js"
import { useUser } from "../../session.js"
import { ChangePasswordPage } from "../auth/ChangePassword.js"
import { ApiKeysPage } from "./ApiKeys.js"
import { OrganizationPage } from "./Organization.js"
import { UsersPage } from "./Users.js"
import { CredentialsPage } from "../manage/Credentials.js"
import { DoNotCallPage } from "../manage/DoNotCall.js"
import { RecordingsPage } from "../manage/Recordings.js"
import { WebhooksPage } from "../manage/Webhooks.js"

export default function SettingsRoutes() {
  const user = useUser()
  const admin = user.role === "admin"
  return (
    <section>
      <PageTitle>Settings</PageTitle>
      <nav aria-label="Settings" className="subnav">
        <ul>
          <li><NavLink to="/settings/api-keys">API keys</NavLink></li>
          {admin && <li><NavLink to="/settings/users">Users</NavLink></li>}
          {admin && <li><NavLink to="/settings/organization">Organization</NavLink></li>}
          <li><NavLink to="/settings/webhooks">Webhooks</NavLink></li>
          <li><NavLink to="/settings/credentials">Credentials</NavLink></li>
          <li><NavLink to="/settings/do-not-call">Do not call</NavLink></li>
          <li><NavLink to="/settings/recordings">Recordings</NavLink></li>
          <li><NavLink to="/settings/password">Password</NavLink></li>
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to="api-keys" replace />} />
        <Route path="api-keys" element={<ApiKeysPage />} />
        {admin && <Route path="users" element={<UsersPage />} />}
        {admin && <Route path="organization" element={<OrganizationPage />} />}
        <Route path="password" element={<ChangePasswordPage forced={false} />} />
        <Route path="webhooks" element={<WebhooksPage />} />
        <Route path="credentials" element={<CredentialsPage />} />
        <Route path="do-not-call" element={<DoNotCallPage />} />
        <Route path="recordings" element={<RecordingsPage />} />
        <Route
          path="*"
          element={<p>{admin ? "There is no such settings page." : "This settings page is for administrators."}</p>}
        />
      </Routes>
    </section>
  )
}
