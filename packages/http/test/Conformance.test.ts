/**
 * What a conformance probe found at the wire (issue 23), each answered as a client expects: a body in
 * another media type than the endpoint takes is a 415 (a malformed multipart body was a 500, a form was
 * read as JSON), a known path with another method is a 405 naming the methods it has, a lone UTF-16
 * surrogate is a 422 like a NUL (PostgreSQL failed with a 500, SQLite stored U+FFFD), unknown body fields
 * are ignored as the OpenAPI document says, `workflow_configurations` is validated, and a campaign
 * update merges the settings objects it is sent into the stored ones.
 */
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { csvOf, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { rawRequest } from "./RawHttp.js"

const locs = (body: { readonly detail: ReadonlyArray<{ readonly loc: ReadonlyArray<string | number> }> }): Array<string> => body.detail.map((issue) => issue.loc.join("."))

/** A multipart body whose closing boundary never comes. */
const brokenMultipart = "--XyZ\r\nContent-Disposition: form-data; name=\"email\"\r\n\r\na@b.c\r\n--XyZ\r\nContent-Disp"

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Lone surrogates [${dialect}]`, (it) => {
    it.effect("a lone surrogate in a name, a context or a key is a 422 naming each field; nothing is stored", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        // JSON can carry a lone surrogate only as an escape; `JSON.stringify` would write it as one too.
        const raw = `{"name": "Sales\\ud800bot", "workflow_definition": ${JSON.stringify(definition())}, ` +
          `"template_context_variables": {"k\\udfff": "v", "ok": "x\\udc00y", "pair": "\\ud83d\\ude00"}}`
        const reply = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, raw })
        expect(reply.status).toBe(422)
        expect(locs(reply.body).sort()).toEqual(["body.name", "body.template_context_variables.k\udfff", "body.template_context_variables.ok"])
        expect(reply.body.detail[0].type).toBe("string_unpaired_surrogate")
        expect((yield* call("GET", "/api/v1/workflow/fetch", { apiKey: org.apiKey })).body).toEqual([])
      }))

    it.effect("a single call's initial_context with a lone surrogate: 422, and a proper pair (an emoji) is stored as sent", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const path = `/api/v1/public/agent/workflow/${setup.agent.workflow_uuid}`
        const refused = yield* call("POST", path, {
          apiKey: setup.apiKey,
          raw: `{"phone_number": "+14155550100", "initial_context": {"first_name": "Ada\\ud800"}}`
        })
        expect([refused.status, locs(refused.body)]).toEqual([422, ["body.initial_context.first_name"]])
        const accepted = yield* call("POST", path, {
          apiKey: setup.apiKey,
          raw: `{"phone_number": "+14155550100", "initial_context": {"first_name": "Ada \\ud83d\\ude00"}}`
        })
        expect(accepted.status).toBe(200)
        const run = yield* call("GET", `/api/v1/workflow/${setup.agent.id}/runs/${accepted.body.workflow_run_id}`, { apiKey: setup.apiKey })
        expect(run.body.initial_context.first_name).toBe("Ada \u{1F600}")
      }))
  })
}

layer(TestApp("sqlite"), { timeout: "120 seconds" })("Media types and methods", (it) => {
  it.effect("a JSON endpoint answers 415 to a multipart or form body, even before authentication", () =>
    Effect.gen(function*() {
      const multipart = yield* call("POST", "/api/v1/auth/login", {
        raw: brokenMultipart,
        headers: { "content-type": "multipart/form-data; boundary=XyZ" }
      })
      expect(multipart.status).toBe(415)
      expect(multipart.body.detail).toContain("application/json")
      const form = yield* call("POST", "/api/v1/auth/login", {
        raw: "email=a%40b.c&password=secret",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expect(form.status).toBe(415)
      const org = yield* seedOrganization()
      const text = yield* call("POST", "/api/v1/user/api-keys", { apiKey: org.apiKey, raw: "{\"name\": \"ci\"}", headers: { "content-type": "text/plain" } })
      expect(text.status).toBe(415)
    }))

  it.effect("JSON with a charset, or with no content type at all (as before), is read as JSON", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const charset = yield* call("POST", "/api/v1/user/api-keys", {
        apiKey: org.apiKey,
        raw: "{\"name\": \"ci\"}",
        headers: { "content-type": "Application/JSON; charset=utf-8" }
      })
      expect(charset.status).toBe(200)
      const bare = yield* rawRequest({
        method: "POST",
        path: "/api/v1/user/api-keys",
        headers: { "x-api-key": org.apiKey, "content-length": 15 },
        chunks: ["{\"name\": \"ci2\"}"],
        end: true
      })
      expect(bare.status).toBe(200)
    }))

  it.effect("the multipart endpoint: a JSON body is a 415, a malformed multipart body a 400, never a 500", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const json = yield* call("POST", "/api/v1/workflow-recordings/transcribe", { apiKey: org.apiKey, body: { file: "x" } })
      expect(json.status).toBe(415)
      expect(json.body.detail).toContain("multipart/form-data")
      const broken = yield* call("POST", "/api/v1/workflow-recordings/transcribe", {
        apiKey: org.apiKey,
        raw: brokenMultipart,
        headers: { "content-type": "multipart/form-data; boundary=XyZ" }
      })
      expect(broken.status).toBe(400)
      for (const raw of ["--XyZ\r\nno headers here\r\n--XyZ--\r\n", "--XyZ--\r\n", "garbage --XyZ--"]) {
        const garbled = yield* call("POST", "/api/v1/workflow-recordings/transcribe", {
          apiKey: org.apiKey,
          raw,
          headers: { "content-type": "multipart/form-data; boundary=XyZ" }
        })
        expect([raw, garbled.status]).toEqual([raw, garbled.status >= 400 && garbled.status < 500 ? garbled.status : "a 4xx"])
      }
    }))

  it.effect("a known path with another method is a 405 with Allow; an unknown path stays a 404", () =>
    Effect.gen(function*() {
      for (
        const [method, path, allow] of [
          ["PUT", "/api/v1/auth/login", "POST"],
          ["DELETE", "/api/v1/campaign/", "GET"],
          ["GET", "/api/v1/campaign/12/start", "POST"],
          ["POST", "/api/v1/campaign/12", "GET, PATCH"],
          ["PATCH", "/api/v1/organizations/telephony-configs/3", "DELETE, GET, PUT"]
        ] as const
      ) {
        const reply = yield* rawRequest({ method, path, headers: { "content-length": 0 }, chunks: [], end: true })
        expect([method, path, reply.status, reply.headers.allow]).toEqual([method, path, 405, allow])
        expect(reply.body.detail).toContain(allow)
      }
      const missing = yield* call("GET", "/api/v1/no-such-thing")
      expect(missing.status).toBe(404)
    }))

  it.effect("unknown body fields are ignored, as in the reference, and the OpenAPI document allows them", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const created = yield* call("POST", "/api/v1/user/api-keys", { apiKey: org.apiKey, body: { name: "ci", scopes: ["all"] } })
      expect(created.status).toBe(200)
      expect(created.body.name).toBe("ci")
      const document = (yield* call("GET", "/api/v1/openapi.json")).body
      const create = document.paths["/api/v1/user/api-keys"].post.requestBody.content["application/json"].schema
      const schema = create.$ref === undefined ? create : document.components.schemas[create.$ref.replace("#/components/schemas/", "")]
      expect(schema.additionalProperties).not.toBe(false)
      expect(JSON.stringify(document)).not.toContain("\"additionalProperties\":false")
    }))

  it.effect("workflow_configurations: known keys are checked (max_call_duration 1 to 1200 seconds), other keys kept", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const create = (workflow_configurations: unknown) =>
        call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Configured", workflow_definition: definition(), workflow_configurations }
        })
      for (const bad of [-5, 0, 99999, "abc", 1200.5]) {
        const reply = yield* create({ max_call_duration: bad })
        expect([bad, reply.status, locs(reply.body)]).toEqual([bad, 422, ["body.workflow_configurations.max_call_duration"]])
      }
      const several = yield* create({ max_call_duration: 0, max_user_idle_timeout: "x", voicemail_detection: { enabled: "yes" } })
      expect(locs(several.body).sort()).toEqual([
        "body.workflow_configurations.max_call_duration",
        "body.workflow_configurations.max_user_idle_timeout",
        "body.workflow_configurations.voicemail_detection.enabled"
      ])
      const good = yield* create({ max_call_duration: 1200, smart_turn_stop_secs: 0.6, dictionary: "Agentline", model_overrides: { llm: "x" }, max_user_idle_timeout: null })
      expect(good.status).toBe(200)
      expect(good.body.workflow_configurations).toEqual({
        max_call_duration: 1200,
        smart_turn_stop_secs: 0.6,
        dictionary: "Agentline",
        model_overrides: { llm: "x" },
        max_user_idle_timeout: null
      })
      const update = yield* call("PUT", `/api/v1/workflow/${good.body.id}`, { apiKey: org.apiKey, body: { workflow_configurations: { max_call_duration: -1 } } })
      expect(update.status).toBe(422)
    }))

  it.effect("a campaign update merges retry_config and circuit_breaker into the stored settings", () =>
    Effect.gen(function*() {
      const setup = yield* setupDialing()
      const upload = yield* uploadCsv(setup.principal, csvOf(["+14155550100"]))
      const created = yield* call("POST", "/api/v1/campaign/create", {
        apiKey: setup.apiKey,
        body: {
          name: "Merge",
          workflow_id: setup.agent.id,
          source_type: "csv",
          source_id: upload,
          retry_config: { max_retries: 5, retry_delay_seconds: 600, retry_on_busy: false },
          circuit_breaker: { failure_threshold: 0.8, window_seconds: 600 }
        }
      })
      expect(created.status).toBe(200)
      const patched = yield* call("PATCH", `/api/v1/campaign/${created.body.id}`, {
        apiKey: setup.apiKey,
        body: { retry_config: { max_retries: 1 }, circuit_breaker: { min_calls_in_window: 9 } }
      })
      expect(patched.status).toBe(200)
      expect(patched.body.retry_config).toEqual({
        enabled: true,
        max_retries: 1,
        retry_delay_seconds: 600,
        retry_on_busy: false,
        retry_on_no_answer: true,
        retry_on_voicemail: true
      })
      expect(patched.body.circuit_breaker).toEqual({ enabled: true, failure_threshold: 0.8, window_seconds: 600, min_calls_in_window: 9 })
      const invalid = yield* call("PATCH", `/api/v1/campaign/${created.body.id}`, { apiKey: setup.apiKey, body: { retry_config: { max_retries: 99 } } })
      expect([invalid.status, locs(invalid.body)]).toEqual([422, ["body.retry_config.max_retries"]])
    }))
})
