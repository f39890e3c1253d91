/**
 * The app shell: which page shows for the session's state, the signed-in layout (skip link, header,
 * navigation, main landmark) and the routes. Each section is its own module under `src/pages/`.
 */
import { BrowserRouter, Navigate, NavLink, Route, Routes, useLocation, useSearchParams } from "react-router"
import { ChangePasswordPage } from "./pages/auth/ChangePassword.js"
import { LoginPage } from "./pages/auth/Login.js"
import { LogoutButton } from "./pages/auth/Logout.js"
import AgentsRoutes from "./pages/agents/index.js"
import HomePage from "./pages/home/index.js"
import CampaignsRoutes from "./pages/campaigns/index.js"
import RunsRoutes from "./pages/runs/index.js"
import SettingsRoutes from "./pages/settings/index.js"
import TelephonyRoutes from "./pages/telephony/index.js"
import { ServerWarnings } from "./components/ServerWarnings.js"
import ToolsRoutes from "./pages/tools/index.js"
import { safeNext } from "./paths.js"
import { SessionProvider, useSession, useUser } from "./session.js"

const SECTIONS = [
  { path: "/", label: "Overview" },
  { path: "/agents", label: "Agents" },
  { path: "/tools", label: "Tools" },
  { path: "/telephony", label: "Telephony" },
  { path: "/campaigns", label: "Campaigns" },
  { path: "/runs", label: "Runs" },
  { path: "/settings", label: "Settings" }
] as const

const Layout = () => {
  const user = useUser()
  return (
    <div className="layout">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <span className="brand" aria-label="Agentline">Agentline</span>
        <nav aria-label="Main">
          <ul>
            {SECTIONS.map((section) => (
              <li key={section.path}>
                <NavLink to={section.path} end={section.path === "/"}>{section.label}</NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account">
          <span className="who" title={`${user.email} (${user.role})`}>{user.email}</span>
          <LogoutButton />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <ServerWarnings />
        <Routes>
          <Route index element={<HomePage />} />
          <Route path="agents/*" element={<AgentsRoutes />} />
          <Route path="tools/*" element={<ToolsRoutes />} />
          <Route path="telephony/*" element={<TelephonyRoutes />} />
          <Route path="campaigns/*" element={<CampaignsRoutes />} />
          <Route path="runs/*" element={<RunsRoutes />} />
          <Route path="settings/*" element={<SettingsRoutes />} />
          <Route path="login" element={<AfterLogin />} />
          <Route path="change-password" element={<AfterLogin />} />
          <Route path="*" element={<NotFound />} />
        </Routes>
      </main>
    </div>
  )
}

/**
 * Logged in (or the password changed) on the login page: on to the page the person asked for
 * (`?next=`). The session's state decides the screen, so the forms only report who logged in.
 */
const AfterLogin = () => {
  const [params] = useSearchParams()
  return <Navigate to={safeNext(params.get("next"))} replace />
}

const NotFound = () => (
  <section>
    <h1>Page not found</h1>
    <p>
      There is no page at this address. <NavLink to="/agents">Go to Agents</NavLink>.
    </p>
  </section>
)

/** Where to go back to after logging in: the page the person asked for. */
const returnPath = (pathname: string, search: string) =>
  pathname === "/login" || pathname === "/change-password" ? "/" : `${pathname}${search}`

const Screens = () => {
  const { state } = useSession()
  const location = useLocation()
  switch (state.status) {
    case "loading":
      return <p className="loading" role="status">Loading…</p>
    case "signed-out":
      // After logging out, a plain login page; otherwise it leads back to the page asked for.
      return location.pathname === "/login"
        ? <LoginPage expired={state.reason === "expired"} />
        : (
          <Navigate
            to={state.reason === "logged-out"
              ? "/login"
              : `/login?next=${encodeURIComponent(returnPath(location.pathname, location.search))}`}
            replace
          />
        )
    case "must-change-password":
      return location.pathname === "/change-password"
        ? <ChangePasswordPage forced />
        : <Navigate to={`/change-password${location.search}`} replace />
    case "signed-in":
      return <Layout />
  }
}

export const App = () => (
  <BrowserRouter>
    <SessionProvider>
      <Screens />
    </SessionProvider>
  </BrowserRouter>
)
