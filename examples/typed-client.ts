/**
 * A typed client for the Agentline API, derived from its HttpApi definition in `@agentline/api` (which
 * depends on `effect` and `@effect/platform` only: no server, no database driver).
 *
 *   AGENTLINE_URL=http://localhost:8000 AGENTLINE_API_KEY=agl_... node --import tsx examples/typed-client.ts
 */
import { AgentlineApi } from "@agentline/api"
import { FetchHttpClient, HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"

export const makeClient = (baseUrl: string, apiKey: string) =>
  HttpApiClient.make(AgentlineApi, {
    baseUrl,
    transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", apiKey))
  })

export const program = (baseUrl: string, apiKey: string) =>
  Effect.gen(function*() {
    const client = yield* makeClient(baseUrl, apiKey)
    const health = yield* client.health.health()
    const keys = yield* client.apiKeys.list({ urlParams: { include_archived: false } })
    return { health, keys }
  }).pipe(Effect.provide(FetchHttpClient.layer))

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await Effect.runPromise(
    program(process.env.AGENTLINE_URL ?? "http://localhost:8000", process.env.AGENTLINE_API_KEY ?? "")
  )
  console.log(JSON.stringify(result, null, 2))
}
