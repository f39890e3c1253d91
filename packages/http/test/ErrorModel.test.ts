/**
 * The error model end to end: domain errors reach the client as `{"detail": ...}` with their status
 * (texts that name a route are written by the server, not by core), the OpenAPI document describes
 * those bodies as they are (no `_tag`, defect 9.8), and a typed client decodes them into its errors.
 */
import { NotFound } from "@agentline/api/Errors"
import { CampaignId } from "@agentline/api/Ids"
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { wire } from "../src/DomainErrors.js"
import { setupDialing } from "./DispatchHarness.js"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

type Json = Record<string, any>

/** Every schema reachable from `schema`, following `$ref`s into the document's components. */
const reachable = (document: Json, schema: Json): Array<Json> => {
  const seen = new Set<Json>()
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== "object" || seen.has(node as Json)) return
    seen.add(node as Json)
    const ref = (node as Json).$ref
    if (typeof ref === "string") visit(document.components.schemas[ref.replace("#/components/schemas/", "")])
    for (const value of Object.values(node as Json)) visit(value)
  }
  visit(schema)
  return [...seen]
}

const operations = (document: Json) =>
  Object.entries<Json>(document.paths).flatMap(([path, item]) =>
    Object.entries<Json>(item).map(([method, operation]) => ({ path, method, operation }))
  )

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "60 seconds" })(`Error model [${dialect}]`, (it) => {
    it.effect("no error schema in the OpenAPI document requires a _tag, and every error answer is described", () =>
      Effect.gen(function*() {
        const { body: document } = yield* call("GET", "/api/v1/openapi.json")
        let errorResponses = 0
        for (const { operation, path, method } of operations(document)) {
          for (const [status, response] of Object.entries<Json>(operation.responses)) {
            if (Number(status) < 400) continue
            errorResponses++
            const schema = response.content?.["application/json"]?.schema
            expect(schema, `${method} ${path} ${status}`).toBeDefined()
            for (const node of reachable(document, schema)) {
              expect(node.required ?? [], `${method} ${path} ${status}`).not.toContain("_tag")
              expect(Object.keys(node.properties ?? {}), `${method} ${path} ${status}`).not.toContain("_tag")
            }
          }
          // Decoding failures answer 422, never the platform's 400 HttpApiDecodeError.
          expect(JSON.stringify(operation.responses)).not.toContain("HttpApiDecodeError")
        }
        expect(errorResponses).toBeGreaterThan(100)
        expect(document.components.schemas.NotFound).toEqual({
          type: "object",
          required: ["detail"],
          properties: { detail: { type: "string" } },
          description: "No such resource in the caller's organization"
        })
        expect(document.components.schemas.ValidationError.required).toEqual(["detail"])
      }))

    it.effect("X-API-Key is a header parameter of every endpoint that takes it, as well as a security scheme", () =>
      Effect.gen(function*() {
        const { body: document } = yield* call("GET", "/api/v1/openapi.json")
        expect(document.components.securitySchemes.apiKey).toEqual({ type: "apiKey", name: "X-API-Key", in: "header" })
        const byKey = operations(document).filter(({ operation }) =>
          (operation.security ?? []).some((requirement: Json) => "apiKey" in requirement)
        )
        expect(byKey.length).toBeGreaterThan(30)
        for (const { operation, path, method } of byKey) {
          const parameter = operation.parameters.find((p: Json) => p.name === "X-API-Key")
          expect(parameter, `${method} ${path}`).toMatchObject({ in: "header" })
          const keyOnly = operation.security.length === 1
          expect(parameter.required, `${method} ${path}`).toBe(keyOnly)
        }
        // The two public agent-run endpoints take only an API key, so there it is required.
        const run = document.paths["/api/v1/public/agent/workflow/{workflow_uuid}"].post
        expect(run.parameters.find((p: Json) => p.name === "X-API-Key").required).toBe(true)
        // Health takes no credentials.
        expect(document.paths["/api/v1/health"].get.parameters.map((p: Json) => p.name)).not.toContain("X-API-Key")
      }))

    it.effect("domain errors keep their wire bodies, including the texts that name a route", () =>
      Effect.gen(function*() {
        const session = yield* call("GET", "/api/v1/auth/me", { token: "als_unknown" })
        expect(session).toEqual({
          status: 401,
          body: { detail: "Invalid or expired token; log in again at POST /api/v1/auth/login" }
        })

        const bare = yield* seedOrganization()
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: bare.apiKey,
          body: { name: "Agent", workflow_definition: definition() }
        })
        expect(agent.status).toBe(200)
        const campaign = { name: "C", workflow_id: agent.body.id, source_type: "csv", source_id: "nope.csv" }
        expect(yield* call("POST", "/api/v1/campaign/create", { apiKey: bare.apiKey, body: campaign })).toEqual({
          status: 400,
          body: {
            detail: "telephony_configuration_not_found: the organization has no default outbound telephony configuration; " +
              "pass telephony_configuration_id or mark one with POST /api/v1/organizations/telephony-configs/{id}/set-default-outbound"
          }
        })

        const org = yield* setupDialing()
        const missingFile = yield* call("POST", "/api/v1/campaign/create", {
          apiKey: org.apiKey,
          body: { ...campaign, workflow_id: org.agent.id }
        })
        expect(missingFile).toEqual({
          status: 400,
          body: {
            detail: "source_id 'nope.csv' is not an uploaded file of this organization; " +
              "upload it first with POST /api/v1/storage/presigned-upload-url"
          }
        })
        const status = (value: string) =>
          call("PUT", `/api/v1/workflow/${org.agent.id}/status`, { apiKey: org.apiKey, body: { status: value } })
        const run = (phone_number: string) =>
          call("POST", `/api/v1/public/agent/workflow/${org.agent.workflow_uuid}`, { apiKey: org.apiKey, body: { phone_number } })
        expect((yield* status("archived")).status).toBe(200)
        expect(yield* run("+14155550100")).toEqual({
          status: 409,
          body: {
            detail: `Agent ${org.agent.id} is archived and cannot be called; ` +
              `restore it with PUT /api/v1/workflow/${org.agent.id}/status {"status": "active"}`
          }
        })
        expect((yield* status("active")).status).toBe(200)
        const badNumber = yield* run("not a number")
        expect(badNumber.status).toBe(422)
        expect(badNumber.body.detail).toEqual([
          expect.objectContaining({ loc: ["body", "phone_number"], input: "not a number", type: "value_error", ctx: {} })
        ])
      }))

    it.effect("a typed client decodes an error answer into the API's error class", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const client = yield* HttpApiClient.make(AgentlineApi, {
          transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader("x-api-key", org.apiKey))
        })
        const error = yield* Effect.flip(client.campaigns.get({ path: { campaign_id: CampaignId.make(999_999) } }))
        expect(error).toBeInstanceOf(NotFound)
        expect(error).toMatchObject({ _tag: "NotFound", detail: "Campaign not found" })
      }))
  })
}

/** Compile-time only: a service error the mapping does not know cannot be handed to `wire`. */
export const unmappedErrorsDoNotCompile = () => {
  class Unmapped extends Schema.TaggedError<Unmapped>()("Unmapped", {}) {}
  // @ts-expect-error Unmapped is not a DomainError, so it has no wire answer
  return wire(Effect.fail(new Unmapped()))
}
