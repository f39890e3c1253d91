import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const Health = Schema.Struct({
  status: Schema.String,
  version: Schema.String,
  backend_api_endpoint: Schema.String,
  deployment_mode: Schema.String,
  auth_provider: Schema.String
})

export class HealthApi extends HttpApiGroup.make("health").annotate(OpenApi.Description, "Whether the server is up")
  .add(HttpApiEndpoint.get("health", "/health").annotate(OpenApi.Summary, "Check the server is up").addSuccess(Health))
{}
