/**
 * Settings: the person's API keys and password; for administrators also the organization's users and
 * its concurrency limit.
 */
import { Navigate, NavLink, Route, Routes } from "react-router"
import { PageTitle } from "../../components/PageTitle.js"
import { useUser } from "../../session.js"
import { ChangePasswordPage } from "../auth/ChangePassword.js"
import { ApiKeysPage } from "./ApiKeys.js"
import { OrganizationPage } from "./Organization.js"
import { UsersPage } from "./Users.js"

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
          <li><NavLink to="/settings/password">Password</NavLink></li>
        </ul>
      </nav>
      <Routes>
        <Route index element={<Navigate to="api-keys" replace />} />
        <Route path="api-keys" element={<ApiKeysPage />} />
        {admin && <Route path="users" element={<UsersPage />} />}
        {admin && <Route path="organization" element={<OrganizationPage />} />}
        <Route path="password" element={<ChangePasswordPage forced={false} />} />
        <Route
          path="*"
          element={<p>{admin ? "There is no such settings page." : "This settings page is for administrators."}</p>}
        />
      </Routes>
    </section>
  )
}
