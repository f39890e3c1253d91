/**
 * A banner over every page while the server's voice services cannot work as configured (no language
 * model, an offline engine not installed): what is wrong and what the operator must set. It names
 * environment variables, so it speaks to whoever runs the server; other users learn why calls go wrong.
 * Nothing shows while loading or when the check itself fails (the page works without it).
 */
import { client } from "../api/client.js"
import { useApi } from "../api/hooks.js"
import { serverWarnings } from "./serverWarnings.js"

export const ServerWarnings = () => {
  const status = useApi(() => client.configurations.validate({ urlParams: {} }), [])
  const warnings = serverWarnings(status.data?.status ?? [])
  if (warnings.length === 0) return null
  return (
    <section className="server-warnings" aria-label="Server configuration">
      {warnings.map((warning, index) => (
        <div key={index} className="server-warning">
          <p><strong>{warning.title}.</strong></p>
          <p>{warning.message}</p>
        </div>
      ))}
    </section>
  )
}
