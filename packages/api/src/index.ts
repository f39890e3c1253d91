/**
 * `@agentline/api`: the Agentline `/api/v1` contract. `AgentlineApi` is the whole `HttpApi` (derive a
 * typed client with `HttpApiClient.make(AgentlineApi, { baseUrl })`); each feature's request and
 * response schemas are in `@agentline/api/<feature>/...`, the wire errors in `@agentline/api/Errors`.
 */
export { AgentlineApi } from "./Api.js"
export * as Authentication from "./Authentication.js"
export * as Errors from "./Errors.js"
export * as Ids from "./Ids.js"
