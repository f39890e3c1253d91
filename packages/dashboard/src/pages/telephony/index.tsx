/**
 * The Telephony section: configurations (forms generated from the providers' metadata), the outbound
 * default, and each configuration's phone numbers with their inbound agent.
 *
 * Contract of a section module (`src/pages/<section>/index.tsx`), kept from the app shell:
 * - its default export is a component that takes no props; the app shell renders it at `/telephony/*`
 *   inside the signed-in layout;
 * - it declares its own nested `<Routes>` with paths relative to `/telephony`;
 * - it reads and writes through the typed client only, failures shown with `<ApiError />`;
 * - it gives its main heading (`<h1>`) the `PageTitle` component.
 */
import { Route, Routes } from "react-router"
import { ConfigurationList, ConfigurationPage, NewConfiguration } from "./Configurations.js"

export default function TelephonyRoutes() {
  return (
    <Routes>
      <Route index element={<ConfigurationList />} />
      <Route path="new" element={<NewConfiguration />} />
      <Route path=":configId" element={<ConfigurationPage />} />
    </Routes>
  )
}
