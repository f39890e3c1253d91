/**
 * The Agents section of the dashboard (owned by the pages work; this placeholder only marks the place).
 *
 * Contract of a section module (`src/pages/<section>/index.tsx`):
 * - its default export is a component that takes no props; the app shell renders it at `/agents/*`
 *   inside the signed-in layout (nav, header, main landmark), so the person is logged in and has
 *   changed any temporary password;
 * - it declares its own nested `<Routes>` with paths relative to `/agents` (e.g. `""`, `"new"`, `":id"`)
 *   and links with relative or absolute (`/agents/...`) paths;
 * - it reads and writes through the typed client only: `client` from `../../api/client.js`, run with
 *   `useApi` (loads) / `useAction` (writes) from `../../api/hooks.js`, failures shown with
 *   `<ApiError error={...} />` (422 lists every field; 401 sends the person to login by itself);
 * - the logged-in user (role "admin" or "member") is `useUser()` from `../../session.js`;
 * - it gives its main heading (`<h1>`) the `PageTitle` component from `../../components/PageTitle.js`,
 *   which sets the document title and takes the focus after navigation.
 */
import { PageTitle } from "../../components/PageTitle.js"

export default function AgentsRoutes() {
  return (
    <section>
      <PageTitle>Agents</PageTitle>
      <p>This page is not built yet.</p>
    </section>
  )
}
