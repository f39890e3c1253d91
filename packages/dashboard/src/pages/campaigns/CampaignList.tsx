/** The campaigns of the organization, newest first, with their state and progress. */
import { useState } from "react"
import { Link } from "react-router"
import { client } from "../../api/client.js"
import { useApi } from "../../api/hooks.js"
import { ApiError } from "../../components/ApiError.js"
import { PageTitle } from "../../components/PageTitle.js"
import { Badge, formatDate, Loading } from "../agents/ui.js"
import { stateTone } from "./CampaignPage.js"

export const CampaignList = () => {
  const [page, setPage] = useState(1)
  const campaigns = useApi(() => client.campaigns.list({ urlParams: { page, limit: 50 } }), [page])
  return (
    <section>
      <PageTitle>Campaigns</PageTitle>
      <div className="toolbar">
        <Link className="button primary" to="new">New campaign</Link>
      </div>
      <ApiError error={campaigns.error} />
      {campaigns.data === undefined ? (campaigns.error === undefined && <Loading what="campaigns" />) : campaigns.data.campaigns.length === 0 ? (
        <p>No campaigns yet. <Link to="new">Create one from a contacts file</Link>.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table className="stack">
              <caption className="visually-hidden">Campaigns</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">State</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Done</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {campaigns.data.campaigns.map((c) => (
                  <tr key={c.id}>
                    <td data-label="Name"><Link to={String(c.id)}>{c.name}</Link></td>
                    <td data-label="State"><Badge tone={stateTone(c.state)}>{c.state}</Badge></td>
                    <td data-label="Agent"><Link to={`/agents/${c.workflow_id}`}>{c.workflow_name}</Link></td>
                    <td data-label="Done">{c.processed_rows} of {c.total_rows ?? "?"}</td>
                    <td data-label="Created">{formatDate(c.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {campaigns.data.total_pages > 1 && (
            <nav className="pager" aria-label="Pages of campaigns">
              <button type="button" onClick={() => setPage(page - 1)} disabled={page <= 1}>Previous page</button>
              <span>Page {page} of {campaigns.data.total_pages}</span>
              <button type="button" onClick={() => setPage(page + 1)} disabled={page >= campaigns.data.total_pages}>Next page</button>
            </nav>
          )}
        </>
      )}
    </section>
  )
}
