/**
 * The Runs section: the organization's runs searched and filtered, runs by agent or by campaign, and
 * each run's page.
 *
 * Contract of a section module (`src/pages/<section>/index.tsx`), kept from the app shell:
 * - its default export is a component that takes no props; the app shell renders it at `/runs/*`
 *   inside the signed-in layout;
 * - it declares its own nested `<Routes>` with paths relative to `/runs`;
 * - it reads and writes through the typed client only, failures shown with `<ApiError />`;
 * - it gives its main heading (`<h1>`) the `PageTitle` component.
 */
import { Link, Route, Routes, useParams } from "react-router"
import { client } from "../../api/client.js"
import { useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Loading, routeId } from "../agents/ui.js"
import { RunPage } from "./RunPage.js"
import { RunSearch } from "./RunSearch.js"
import { RunsTable } from "./RunsTable.js"

const RunsHome = () => {
  const agents = useApi(() => client.workflows.list({ urlParams: { status: "active,archived" } }), [])
  const campaigns = useApi(() => client.campaigns.list({ urlParams: { page: 1, limit: 100 } }), [])
  return (
    <section>
      <PageTitle>Runs</PageTitle>
      <p>Every call is a run of an agent: search them all, or choose the agent or the campaign whose runs to see.</p>
      <RunSearch />
      <div className="two-columns">
        <section aria-labelledby="by-agent">
          <h2 id="by-agent">By agent</h2>
          <ApiError error={agents.error} />
          {agents.data === undefined ? <Loading what="agents" /> : agents.data.length === 0 ? <p className="hint">No agents.</p> : (
            <ul>
              {agents.data.map((a) => <li key={a.id}><Link to={`agent/${a.id}`}>{a.name}</Link> ({a.total_runs} runs)</li>)}
            </ul>
          )}
        </section>
        <section aria-labelledby="by-campaign">
          <h2 id="by-campaign">By campaign</h2>
          <ApiError error={campaigns.error} />
          {campaigns.data === undefined ? <Loading what="campaigns" /> : campaigns.data.campaigns.length === 0 ? <p className="hint">No campaigns.</p> : (
            <ul>
              {campaigns.data.campaigns.map((c) => <li key={c.id}><Link to={`campaign/${c.id}`}>{c.name}</Link> ({c.workflow_name})</li>)}
            </ul>
          )}
        </section>
      </div>
    </section>
  )
}

const AgentRuns = () => {
  const id = routeId(useParams().workflowId)
  const agent = useApi(() => client.workflows.list({ urlParams: { status: "active,archived" } }), [])
  if (id === undefined) return <p className="error" role="alert">This is not an agent's address.</p>
  const name = agent.data?.find((a) => a.id === id)?.name ?? `agent ${id}`
  return (
    <section>
      <PageTitle title={`Runs of ${name}`}>Runs of <Link to={`/agents/${id}`}>{name}</Link></PageTitle>
      <RunsTable source={{ kind: "agent", workflowId: id }} />
    </section>
  )
}

const CampaignRuns = () => {
  const id = routeId(useParams().campaignId)
  if (id === undefined) return <p className="error" role="alert">This is not a campaign's address.</p>
  return (
    <section>
      <PageTitle title={`Runs of campaign ${id}`}>Runs of <Link to={`/campaigns/${id}`}>campaign {id}</Link></PageTitle>
      <RunsTable source={{ kind: "campaign", campaignId: id }} />
    </section>
  )
}

export default function RunsRoutes() {
  return (
    <Routes>
      <Route index element={<RunsHome />} />
      <Route path="agent/:workflowId" element={<AgentRuns />} />
      <Route path="campaign/:campaignId" element={<CampaignRuns />} />
      <Route path=":workflowId/:runId" element={<RunPage />} />
    </Routes>
  )
}
