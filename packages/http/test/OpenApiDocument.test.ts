/**
 * The OpenAPI document the server serves (`/api/v1/openapi.json`, and what `npm run lint:openapi` hands
 * to redocly): a summary per operation, named components for the main resources, integer path ids,
 * length limits, the errors each operation can really answer, `servers`.
 */
import { isJsonObject, type Json, type JsonObject, objectAt, stringAt, toJson } from "@agentline/api/OpenApiDocument"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { openApiDocument } from "../src/OpenApiSpec.js"
import { registryLayer } from "../src/telephony/Providers.js"

const document = Effect.map(openApiDocument, (spec) => {
  const json = toJson(spec)
  if (!isJsonObject(json)) throw new Error("the document is not an object")
  return json
}).pipe(Effect.provide(registryLayer()), Effect.scoped)

const METHODS = ["get", "put", "post", "delete", "patch"]

const operations = (spec: JsonObject): ReadonlyArray<{ readonly path: string; readonly method: string; readonly operation: JsonObject }> =>
  Object.entries(objectAt(spec, "paths")).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = isJsonObject(item) ? item[method] : undefined
      return isJsonObject(operation) ? [{ path, method, operation }] : []
    })
  )

const operation = (spec: JsonObject, method: string, path: string): JsonObject => objectAt(objectAt(objectAt(spec, "paths"), path), method)

const statuses = (op: JsonObject): ReadonlyArray<string> => Object.keys(objectAt(op, "responses")).sort()

const successSchema = (op: JsonObject): Json | undefined =>
  objectAt(objectAt(objectAt(objectAt(op, "responses"), "200"), "content"), "application/json")["schema"]

const parameter = (op: JsonObject, name: string): JsonObject => {
  const found = (Array.isArray(op["parameters"]) ? op["parameters"] : []).find((p: Json) => stringAt(p, "name") === name)
  return isJsonObject(found) ? found : {}
}

describe("the OpenAPI document", () => {
  it.effect("has a summary for every operation, unique operation ids, and servers", () =>
    Effect.gen(function*() {
      const spec = yield* document
      const all = operations(spec)
      expect(all.length).toBeGreaterThan(80)
      const unsummarized = all.filter(({ operation }) => (stringAt(operation, "summary") ?? "").trim() === "").map((o) => `${o.method} ${o.path}`)
      expect(unsummarized).toEqual([])
      const ids = all.map(({ operation }) => stringAt(operation, "operationId"))
      expect(new Set(ids).size).toBe(all.length)
      expect(spec["servers"]).toEqual([{ url: "/", description: "The server that serves this document" }])
      // One spelling per path: no trailing slash, no two paths differing only by parameter names.
      const paths = Object.keys(objectAt(spec, "paths"))
      expect(paths.filter((p) => p.endsWith("/"))).toEqual([])
      const shapes = paths.map((p) => p.replace(/\{[^}]+\}/g, "{}"))
      expect(new Set(shapes).size).toBe(paths.length)
    }))

  it.effect("names the main resources as components and refers to them", () =>
    Effect.gen(function*() {
      const spec = yield* document
      const schemas = objectAt(objectAt(spec, "components"), "schemas")
      for (const name of ["Campaign", "Run", "Workflow", "PhoneNumber", "TelephonyConfiguration"]) {
        expect(objectAt(schemas, name)["type"], name).toBe("object")
      }
      const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
      expect(successSchema(operation(spec, "get", "/api/v1/campaign/{campaign_id}"))).toEqual(ref("Campaign"))
      expect(successSchema(operation(spec, "post", "/api/v1/campaign/{campaign_id}/start"))).toEqual(ref("Campaign"))
      expect(successSchema(operation(spec, "get", "/api/v1/workflow/{workflow_id}/runs/{run_id}"))).toEqual(ref("Run"))
      expect(successSchema(operation(spec, "get", "/api/v1/workflow/fetch/{workflow_id}"))).toEqual(ref("Workflow"))
      expect(successSchema(operation(spec, "get", "/api/v1/organizations/telephony-configs/{config_id}/phone-numbers/{phone_number_id}")))
        .toEqual(ref("PhoneNumber"))
      expect(successSchema(operation(spec, "get", "/api/v1/organizations/telephony-configs/{config_id}"))).toEqual(ref("TelephonyConfiguration"))
    }))

  it.effect("says path ids are integers and shows the length limits of names", () =>
    Effect.gen(function*() {
      const spec = yield* document
      const ids = operations(spec).flatMap(({ operation }) =>
        (Array.isArray(operation["parameters"]) ? operation["parameters"] : [])
          .filter((p: Json) => stringAt(p, "in") === "path" && /_id$/.test(stringAt(p, "name") ?? ""))
      )
      expect(ids.length).toBeGreaterThan(40)
      const types = new Set(ids.map((p) => `${stringAt(p, "name")}: ${stringAt(objectAt(p, "schema"), "type")}`))
      expect([...types].filter((t) => !t.endsWith(": integer") && !t.startsWith("recording_id:"))).toEqual([])
      expect(objectAt(parameter(operation(spec, "get", "/api/v1/campaign/{campaign_id}"), "campaign_id"), "schema")).toMatchObject({
        type: "integer",
        maximum: 2147483647
      })
      // The reference's PATCH takes the recording's numeric id, its DELETE the recording_id text: one path, two types.
      const recording = "/api/v1/workflow-recordings/{recording_id}"
      expect(stringAt(objectAt(parameter(operation(spec, "patch", recording), "recording_id"), "schema"), "type")).toBe("integer")
      expect(stringAt(objectAt(parameter(operation(spec, "delete", recording), "recording_id"), "schema"), "type")).toBe("string")

      const body = (method: string, path: string) => {
        const schema = objectAt(objectAt(objectAt(objectAt(operation(spec, method, path), "requestBody"), "content"), "application/json"), "schema")
        const ref = stringAt(schema, "$ref")
        return ref === undefined ? schema : objectAt(objectAt(objectAt(spec, "components"), "schemas"), ref.split("/").pop()!)
      }
      const name = (method: string, path: string) => objectAt(objectAt(body(method, path), "properties"), "name")
      expect(name("post", "/api/v1/campaign/create")).toMatchObject({ minLength: 1, maxLength: 255 })
      expect(name("post", "/api/v1/workflow/create/definition")).toMatchObject({ minLength: 1, maxLength: 255 })
      expect(name("post", "/api/v1/organizations/telephony-configs")).toMatchObject({ minLength: 1, maxLength: 64 })
      expect(name("post", "/api/v1/user/api-keys")).toMatchObject({ minLength: 1, maxLength: 100 })
    }))

  it.effect("lists the errors each operation can answer, not one list for all", () =>
    Effect.gen(function*() {
      const spec = yield* document
      // Public, without inputs: nothing but success.
      expect(statuses(operation(spec, "get", "/api/v1/health"))).toEqual(["200"])
      // Authenticated, no inputs: its credentials can be refused, nothing else.
      expect(statuses(operation(spec, "get", "/api/v1/auth/me"))).not.toContain("422")
      expect(statuses(operation(spec, "get", "/api/v1/auth/me"))).toContain("401")
      // A body: unreadable, too large, another media type, invalid.
      const create = statuses(operation(spec, "post", "/api/v1/campaign/create"))
      expect(create).toEqual(expect.arrayContaining(["400", "401", "413", "415", "422"]))
      // A path id but no body: 422 (not an integer), none of the body's answers.
      const get = statuses(operation(spec, "get", "/api/v1/campaign/{campaign_id}"))
      expect(get).toEqual(expect.arrayContaining(["401", "404", "422"]))
      expect(get).not.toContain("413")
      expect(get).not.toContain("415")
      // The platform's own decode error is never answered.
      expect(JSON.stringify(spec)).not.toContain("HttpApiDecodeError")
      // Not every operation answers the same statuses.
      expect(new Set(operations(spec).map(({ operation }) => statuses(operation).join(","))).size).toBeGreaterThan(5)
    }))
})
