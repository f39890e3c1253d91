import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Authentication } from "../Authentication.js"
import { IntFromString } from "../Params.js"
import { ConfigurationStatus } from "./Configurations.js"

/**
 * The server's voice configuration as its users need to know it: the reference's validation endpoint
 * (its path and `{status: [{model, message}]}` shape), answered from what the server found when it
 * started. Any user of any organization; no names of keys, addresses or secrets in it.
 */
export class ConfigurationsApi extends HttpApiGroup.make("configurations").annotate(OpenApi.Description, "The server's voice services (language model, speech to text, text to speech)")
  .add(
    HttpApiEndpoint.get("validate", "/user/configurations/user/validate").annotate(OpenApi.Summary, "Check the server's voice services configuration")
      .setUrlParams(Schema.Struct({
        // The reference's cache of vendor checks, 0–86400 s; kept so its clients' requests stay valid.
        validity_ttl_seconds: Schema.optional(
          IntFromString.pipe(Schema.between(0, 86_400, { message: () => "validity_ttl_seconds must be between 0 and 86400" }))
        )
      }))
      .addSuccess(ConfigurationStatus)
      .annotate(
        OpenApi.Description,
        "What keeps the server's language model (llm), speech to text (stt) or text to speech (tts) from working, " +
          "each with what to set or install: no AGENTLINE_LLM, an OpenAI service without OPENAI_API_KEY, the offline " +
          "engines not installed. Found when the server started (the same warnings are in its log); an empty list " +
          "when nothing is known to be wrong. The reference's validity_ttl_seconds is accepted and has no effect: " +
          "nothing is checked with the vendors."
      )
  )
  .middleware(Authentication)
{}
