/**
 * The Agents section: the list and the new-agent form, and each agent's page (editor, settings,
 * versions, runs, test call).
 *
 * Contract of a section module (`src/pages/<section>/index.tsx`), kept from the app shell:
 * - its default export is a component that takes no props; the app shell renders it at `/agents/*`
 *   inside the signed-in layout (nav, header, main landmark);
 * - it declares its own nested `<Routes>` with paths relative to `/agents`;
 * - it reads and writes through the typed client only (`client` with `useApi` / `useAction`), failures
 *   shown with `<ApiError error={...} />`;
 * - it gives its main heading (`<h1>`) the `PageTitle` component.
 */
import { Route, Routes } from "react-router"
import { AgentList, NewAgent } from "./AgentList.js"
import { AgentPage } from "./AgentPage.js"

export default function AgentsRoutes() {
  return (
    <Routes>
      <Route index element={<AgentList />} />
      <Route path="new" element={<NewAgent />} />
      <Route path=":agentId/*" element={<AgentPage />} />
    </Routes>
  )
}
