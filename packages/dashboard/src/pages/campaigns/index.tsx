/**
 * The Campaigns section: the list, a new campaign from a dropped CSV, and each campaign's live view.
 *
 * Contract of a section module (`src/pages/<section>/index.tsx`), kept from the app shell:
 * - its default export is a component that takes no props; the app shell renders it at `/campaigns/*`
 *   inside the signed-in layout;
 * - it declares its own nested `<Routes>` with paths relative to `/campaigns`;
 * - it reads and writes through the typed client only, failures shown with `<ApiError />`;
 * - it gives its main heading (`<h1>`) the `PageTitle` component.
 */
import { Route, Routes } from "react-router"
import { CampaignList } from "./CampaignList.js"
import { CampaignPage } from "./CampaignPage.js"
import { NewCampaign } from "./NewCampaign.js"

export default function CampaignsRoutes() {
  return (
    <Routes>
      <Route index element={<CampaignList />} />
      <Route path="new" element={<NewCampaign />} />
      <Route path=":campaignId" element={<CampaignPage />} />
    </Routes>
  )
}
