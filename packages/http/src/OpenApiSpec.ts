/**
 * The API as this server serves it, and its OpenAPI document (served at `/api/v1/openapi.json`,
 * written by `npm run lint:openapi` for redocly): the contract of `@agentline/api` with the server's
 * version and the telephony providers of its registry.
 */
import { AgentlineApi } from "@agentline/api/Api"
import { TelephonyRegistry, type TelephonyRegistryShape } from "@agentline/core/telephony/TelephonyRegistry"
import { OpenApi } from "@effect/platform"
import { Effect } from "effect"
import { VERSION } from "./ServerConfig.js"
import { withProviderConfigs } from "./telephony/OpenApiConfigs.js"

/** `AgentlineApi` with this server's version and its registry's providers in the document. */
export const servedApi = (registry: TelephonyRegistryShape) => withProviderConfigs(AgentlineApi.annotate(OpenApi.Version, VERSION), registry)

/** The OpenAPI document the server serves, for the registry in context. */
export const openApiDocument: Effect.Effect<OpenApi.OpenAPISpec, never, TelephonyRegistry> = Effect.map(
  TelephonyRegistry,
  (registry) => OpenApi.fromApi(servedApi(registry))
)
