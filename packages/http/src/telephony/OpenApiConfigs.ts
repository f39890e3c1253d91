/**
 * The telephony `config` union in the OpenAPI document. The API definition cannot know which providers
 * a server has (an embedding application adds or replaces some), so the server describes them when it
 * is built: each provider of its registry becomes one member of a `oneOf` keyed by `provider`, with its
 * own fields, which of them are required, and which are sensitive (`x-sensitive`, `format: password`:
 * encrypted at rest, masked in every response).
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { TelephonyRegistryShape } from "@agentline/core/telephony/TelephonyRegistry"
import { isJsonObject, type Json, type JsonObject, objectAt, openObjects, stringAt, toJson } from "@agentline/api/OpenApiDocument"
import { type HttpApi, type HttpApiGroup, OpenApi, OpenApiJsonSchema } from "@effect/platform"
import { Context } from "effect"

const UNION = "TelephonyProviderConfig"
const PREFIX = "#/components/schemas/"

/** A component name for a provider (component keys allow letters, digits, `.`, `-` and `_`). */
const componentName = (provider: string) => `${UNION}.${provider.replace(/[^A-Za-z0-9._-]/g, "_")}`

const resolve = (schema: Json | undefined, components: Record<string, Json>): JsonObject => {
  const ref = stringAt(schema, "$ref")
  const target = ref !== undefined && ref.startsWith(PREFIX) ? components[ref.slice(PREFIX.length)] ?? schema : schema
  return isJsonObject(target) ? target : {}
}

/** One provider's credentials object, as its schema decodes it, annotated with its field list. */
export const providerSchema = (provider: TelephonyProvider, components: Record<string, Json>): JsonObject => {
  const made: Record<string, OpenApiJsonSchema.JsonSchema> = {}
  const root = toJson(OpenApiJsonSchema.makeWithDefs(provider.configSchema, { defs: made }))
  for (const [name, definition] of Object.entries(made)) components[name] ??= toJson(definition)
  const generated = resolve(root, components)
  const properties: Record<string, Json> = { provider: { type: "string", enum: [provider.name] } }
  for (const field of provider.fields) {
    const base = objectAt(objectAt(generated, "properties"), field.name)
    const sensitive = "Sensitive: encrypted at rest, masked in responses."
    properties[field.name] = {
      ...base,
      title: field.label,
      // The schema's own description of a string ("a string that will be trimmed") says nothing useful.
      description: [field.description, field.sensitive ? sensitive : undefined].filter((d) => d !== undefined).join(" ") || field.label,
      ...(field.required && base["type"] === "string" ? { minLength: 1 } : {}),
      ...(field.sensitive ? { format: "password", "x-sensitive": true } : {}),
      ...(field.options !== undefined ? { enum: field.options.map((o) => o.value) } : {})
    }
  }
  const required = ["provider", ...provider.fields.filter((f) => f.required).map((f) => f.name)]
  return {
    type: "object",
    title: provider.displayName,
    description: `Credentials of a ${provider.displayName} configuration. Sensitive fields (x-sensitive) are encrypted ` +
      "at rest and masked in responses; unknown keys are ignored.",
    required,
    properties
  }
}

/** `spec` with every telephony configuration `config` described as the union of `providers`. */
export const describeProviderConfigs = (spec: JsonObject, providers: ReadonlyArray<TelephonyProvider>): JsonObject => {
  const components: Record<string, Json> = { ...objectAt(objectAt(spec, "components"), "schemas") }
  const mapping: Record<string, string> = {}
  for (const provider of providers) {
    const name = componentName(provider.name)
    components[name] = providerSchema(provider, components)
    mapping[provider.name] = `${PREFIX}${name}`
  }
  components[UNION] = {
    description: "A telephony provider's credentials, chosen by `provider`.",
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: "provider", mapping }
  }
  const paths: Record<string, Json> = {}
  for (const [path, operations] of Object.entries(objectAt(spec, "paths"))) {
    if (!/\/organizations\/telephony-configs(\/\{[^}]+\})?$/.test(path) || !isJsonObject(operations)) {
      paths[path] = operations
      continue
    }
    paths[path] = Object.fromEntries(Object.entries(operations).map(([method, operation]) => {
      const requestBody = objectAt(operation, "requestBody")
      const content = objectAt(requestBody, "content")
      const json = objectAt(content, "application/json")
      const body = content["application/json"] === undefined ? undefined : resolve(json["schema"], components)
      if (body === undefined || objectAt(body, "properties")["config"] === undefined || !isJsonObject(operation)) return [method, operation]
      const schema = { ...body, properties: { ...objectAt(body, "properties"), config: { $ref: `${PREFIX}${UNION}` } } }
      return [method, {
        ...operation,
        requestBody: { ...requestBody, content: { ...content, "application/json": { ...json, schema } } }
      }]
    }))
  }
  // Provider schemas come from their decoders, which ignore unknown keys: the document says so everywhere.
  return { ...spec, paths: openObjects(paths), components: { ...objectAt(spec, "components"), schemas: openObjects(components) } }
}

/**
 * `api` with its OpenAPI document describing the registry's providers (after any transform the api
 * already has). Serve the result with `HttpApiBuilder.api`: the handlers of `api` serve it unchanged.
 */
export const withProviderConfigs = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  registry: TelephonyRegistryShape
): HttpApi.HttpApi<Id, Groups, E, R> => {
  const previous = Context.getOption(api.annotations, OpenApi.Transform)
  return api.annotate(OpenApi.Transform, (spec) => describeProviderConfigs(previous._tag === "Some" ? previous.value(spec) : spec, registry.all))
}
