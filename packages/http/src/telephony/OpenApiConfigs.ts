/**
 * The telephony `config` union in the OpenAPI document. The API definition cannot know which providers
 * a server has (an embedding application adds or replaces some), so the server describes them when it
 * is built: each provider of its registry becomes one member of a `oneOf` keyed by `provider`, with its
 * own fields, which of them are required, and which are sensitive (`x-sensitive`, `format: password`:
 * encrypted at rest, masked in every response).
 */
import type { TelephonyProvider } from "@agentline/telephony-kit/TelephonyProvider"
import type { TelephonyRegistryShape } from "@agentline/core/telephony/TelephonyRegistry"
import { openObjects } from "@agentline/api/OpenApiDocument"
import { OpenApi, OpenApiJsonSchema } from "@effect/platform"
import type { HttpApi } from "@effect/platform"
import { Context } from "effect"

type JsonObject = Record<string, any>

const UNION = "TelephonyProviderConfig"

/** A component name for a provider (component keys allow letters, digits, `.`, `-` and `_`). */
const componentName = (provider: string) => `${UNION}.${provider.replace(/[^A-Za-z0-9._-]/g, "_")}`

const resolve = (schema: JsonObject, components: JsonObject): JsonObject => {
  const ref = schema?.$ref
  return typeof ref === "string" && ref.startsWith("#/components/schemas/")
    ? components[ref.slice("#/components/schemas/".length)] ?? schema
    : schema
}

/** One provider's credentials object, as its schema decodes it, annotated with its field list. */
export const providerSchema = (provider: TelephonyProvider, components: JsonObject): JsonObject => {
  const generated = resolve(OpenApiJsonSchema.makeWithDefs(provider.configSchema, { defs: components }) as JsonObject, components)
  const properties: JsonObject = { provider: { type: "string", enum: [provider.name] } }
  for (const field of provider.fields) {
    const base: JsonObject = { ...generated.properties?.[field.name] }
    const sensitive = "Sensitive: encrypted at rest, masked in responses."
    properties[field.name] = {
      ...base,
      title: field.label,
      // The schema's own description of a string ("a string that will be trimmed") says nothing useful.
      description: [field.description, field.sensitive ? sensitive : undefined].filter((d) => d !== undefined).join(" ") || field.label,
      ...(field.required && base.type === "string" ? { minLength: 1 } : {}),
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
  const components: JsonObject = { ...spec.components?.schemas }
  const mapping: Record<string, string> = {}
  for (const provider of providers) {
    const name = componentName(provider.name)
    components[name] = providerSchema(provider, components)
    mapping[provider.name] = `#/components/schemas/${name}`
  }
  components[UNION] = {
    description: "A telephony provider's credentials, chosen by `provider`.",
    oneOf: Object.values(mapping).map(($ref) => ({ $ref })),
    discriminator: { propertyName: "provider", mapping }
  }
  const paths: JsonObject = {}
  for (const [path, operations] of Object.entries<JsonObject>(spec.paths ?? {})) {
    if (!/\/organizations\/telephony-configs(\/\{[^}]+\})?$/.test(path)) {
      paths[path] = operations
      continue
    }
    paths[path] = Object.fromEntries(Object.entries<JsonObject>(operations).map(([method, operation]) => {
      const content = operation?.requestBody?.content?.["application/json"]
      const body = content === undefined ? undefined : resolve(content.schema, components)
      if (body?.properties?.config === undefined) return [method, operation]
      const schema = { ...body, properties: { ...body.properties, config: { $ref: `#/components/schemas/${UNION}` } } }
      return [method, {
        ...operation,
        requestBody: { ...operation.requestBody, content: { ...operation.requestBody.content, "application/json": { ...content, schema } } }
      }]
    }))
  }
  // Provider schemas come from their decoders, which ignore unknown keys: the document says so everywhere.
  return openObjects({ ...spec, paths, components: { ...spec.components, schemas: components } }) as JsonObject
}

/**
 * `api` with its OpenAPI document describing the registry's providers (after any transform the api
 * already has). Serve the result with `HttpApiBuilder.api`: the handlers of `api` serve it unchanged.
 */
export const withProviderConfigs = <A extends HttpApi.HttpApi.Any>(api: A, registry: TelephonyRegistryShape): A => {
  const self = api as unknown as HttpApi.HttpApi.AnyWithProps
  const previous = Context.getOption(self.annotations, OpenApi.Transform)
  const transform = (spec: JsonObject) =>
    describeProviderConfigs(previous._tag === "Some" ? previous.value(spec) : spec, registry.all)
  return self.annotate(OpenApi.Transform, transform) as unknown as A
}
