import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { csvOf, numbers, plainDefinition, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const presignAndPut = (apiKey: string, csv: string, declared = Buffer.byteLength(csv), contentType = "text/csv") =>
  Effect.gen(function*() {
    const presigned = yield* call("POST", "/api/v1/storage/presigned-upload-url", {
      apiKey,
      body: { file_name: "contacts.csv", file_size: declared, content_type: "text/csv" }
    })
    expect(presigned.status).toBe(200)
    const url = new URL(presigned.body.upload_url)
    const put = yield* call("PUT", `${url.pathname}${url.search}`, { raw: csv, headers: { "content-type": contentType } })
    return { presigned: presigned.body, put, path: `${url.pathname}${url.search}` }
  })

const create = (apiKey: string, body: Record<string, unknown>) => call("POST", "/api/v1/campaign/create", { apiKey, body })

for (const dialect of dialects) {
  layer(TestApp(dialect), { timeout: "120 seconds" })(`Uploads and campaigns [${dialect}]`, (it) => {
    it.effect("presigned upload: org-scoped key, signed URL, size limits, wrong signature", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const csv = "phone_number\n+14155550100\n"
        const { presigned, put, path } = yield* presignAndPut(org.apiKey, csv)
        expect(presigned.file_key.startsWith(`${org.principal.organizationId}/contacts/`)).toBe(true)
        expect(presigned.expires_in).toBe(900)
        expect(put).toEqual({ status: 200, body: { file_key: presigned.file_key, size: csv.length } })

        const tampered = path.replace(/signature=[^&]+/, "signature=AAAA")
        expect((yield* call("PUT", tampered, { raw: csv, headers: { "content-type": "text/csv" } })).status).toBe(403)
        const expired = path.replace(/expires=\d+/, "expires=1000")
        expect((yield* call("PUT", expired, { raw: csv, headers: { "content-type": "text/csv" } })).status).toBe(403)

        const tooBig = yield* presignAndPut(org.apiKey, csv + "+14155550101\n", csv.length)
        expect(tooBig.put.status).toBe(413)
        const alias = yield* call("POST", "/api/v1/s3/presigned-upload-url", { apiKey: org.apiKey, body: { file_name: "a.csv", file_size: 10 } })
        expect(alias.status).toBe(200)
        const overMax = yield* call("POST", "/api/v1/storage/presigned-upload-url", { apiKey: org.apiKey, body: { file_name: "a.csv", file_size: 200 * 1024 * 1024 } })
        expect(overMax.status).toBe(413)
        const notCsv = yield* call("POST", "/api/v1/storage/presigned-upload-url", { apiKey: org.apiKey, body: { file_name: "a.xlsx", file_size: 10 } })
        expect(notCsv.status).toBe(422)
        const wrongType = yield* presignAndPut(org.apiKey, csv, csv.length, "application/json")
        expect(wrongType.put.status).toBe(400)
      }))

    it.effect("create imports the CSV (quotes, embedded newlines, BOM, CRLF, empty lines) and shows effective settings", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const csv = "\uFEFF Phone_Number ,Name,Notes,timezone\r\n" +
          "+1 415 555 0100,\"Lovelace, Ada\",\"first line\nsecond line\",Europe/London\r\n" +
          "\r\n" +
          "+14155550101,Grace,\"she said \"\"hi\"\"\",\r\n"
        const key = yield* uploadCsv(setup.principal, csv)
        const created = yield* create(setup.apiKey, { name: "Import", workflow_id: setup.agent.id, source_type: "csv", source_id: key })
        expect(created.status, JSON.stringify(created.body)).toBe(200)
        expect(created.body).toMatchObject({
          state: "draft",
          total_rows: 2,
          processed_rows: 0,
          failed_rows: 0,
          executed_count: 0,
          total_queued_count: 2,
          source_type: "csv",
          source_id: key,
          workflow_name: "Dialer",
          telephony_configuration_id: setup.configurationId,
          telephony_configuration_name: "simulated",
          max_concurrency: null,
          schedule_config: null,
          parent_campaign_id: null,
          redialed_campaign_id: null,
          retry_config: { enabled: true, max_retries: 2, retry_delay_seconds: 120, retry_on_busy: true, retry_on_no_answer: true, retry_on_voicemail: true },
          circuit_breaker: { enabled: true, failure_threshold: 0.5, window_seconds: 120, min_calls_in_window: 5 }
        })
        const sql = yield* SqlClient.SqlClient
        const contacts = yield* sql`SELECT phone_number, timezone, initial_context FROM contacts WHERE campaign_id = ${created.body.id} ORDER BY id`
        expect(contacts.map((c) => c.phone_number)).toEqual(["+14155550100", "+14155550101"])
        expect(contacts[0]!.timezone).toBe("Europe/London")
        const context = typeof contacts[0]!.initial_context === "string" ? JSON.parse(contacts[0]!.initial_context) : contacts[0]!.initial_context
        expect(context).toEqual({ name: "Lovelace, Ada", notes: "first line\nsecond line" })
        const second = typeof contacts[1]!.initial_context === "string" ? JSON.parse(contacts[1]!.initial_context) : contacts[1]!.initial_context
        expect(second.notes).toBe("she said \"hi\"")
      }))

    it.effect("a 100,000-row file is imported in the create request within a memory bound", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const areas = [212, 213, 310, 312, 404, 415, 512, 617, 646, 702]
        const lines = ["phone_number,first_name,notes"]
        for (let i = 0; i < 100_000; i++) lines.push(`+1${areas[Math.floor(i / 10_000)]}555${String(i % 10_000).padStart(4, "0")},Name ${i},"note, with comma"`)
        const key = yield* uploadCsv(setup.principal, lines.join("\n") + "\n")
        lines.length = 0
        global.gc?.()
        const before = process.memoryUsage().heapUsed
        let peak = before
        const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5)
        const created = yield* create(setup.apiKey, { name: "Big", workflow_id: setup.agent.id, source_type: "csv", source_id: key })
        clearInterval(sampler)
        expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(200)
        expect(created.body.total_rows).toBe(100_000)
        // A loose end-to-end bound (garbage included); the exact constant-memory property is tested on
        // the reader itself in packages/core/test/campaigns/CsvImport.test.ts.
        expect((peak - before) / 1024 / 1024).toBeLessThan(400)
      }), 120_000)

    it.effect("a file at fault is a 400 naming the rows; nothing of it is kept", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const body = (key: string) => ({ name: "Bad", workflow_id: setup.agent.id, source_type: "csv", source_id: key })
        const noColumn = yield* create(setup.apiKey, body(yield* uploadCsv(setup.principal, "number\n+14155550100\n")))
        expect(noColumn.status).toBe(400)
        expect(noColumn.body.detail).toContain("'phone_number' column")
        const bad = yield* create(setup.apiKey, body(yield* uploadCsv(setup.principal,
          "phone_number,timezone\n+14155550100,\nnot-a-number,\n+14155550100,\n+14155550102,Mars/Olympus\n,\n")))
        expect(bad.status).toBe(400)
        expect(bad.body.detail).toContain("Invalid phone numbers in rows: 3")
        expect(bad.body.detail).toContain("Duplicate phone numbers in rows: 4")
        expect(bad.body.detail).toContain("Unknown time zones in rows: 5")
        expect(bad.body.detail).toContain("Empty phone_number in rows: 6")
        const sql = yield* SqlClient.SqlClient
        const [left] = yield* sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM campaigns WHERE name = 'Bad' AND organization_id = ${setup.principal.organizationId}`
        expect(Number(left!.n)).toBe(0)

        const templated = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: setup.apiKey,
          body: {
            name: "Templated",
            workflow_definition: {
              ...plainDefinition(),
              nodes: [
                { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Hi {{first_name}}, about {{topic | your order}}" } },
                { id: "end", type: "endCall", position: { x: 0, y: 1 }, data: { name: "End", prompt: "Bye {{first_name}}" } }
              ]
            }
          }
        })
        const missingVariable = yield* create(setup.apiKey, {
          ...body(yield* uploadCsv(setup.principal, "phone_number\n+14155550100\n")),
          workflow_id: templated.body.id
        })
        expect(missingVariable.status).toBe(400)
        expect(missingVariable.body.detail).toContain("'first_name'")
        expect(missingVariable.body.detail).not.toContain("topic")
      }))

    it.effect("validation: every bound and field at fault is 422; references are checked", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing()
        const key = yield* uploadCsv(setup.principal, csvOf(numbers(2, "+1646555")))
        const invalid = yield* create(setup.apiKey, {
          name: "",
          workflow_id: setup.agent.id,
          source_type: "xlsx",
          source_id: key,
          max_concurrency: 101,
          retry_config: { max_retries: 11, retry_delay_seconds: 0 },
          schedule_config: { timezone: "Mars/Olympus", slots: [{ day_of_week: 7, start_time: "25:99", end_time: "09:00" }] },
          circuit_breaker: { failure_threshold: 0, window_seconds: 5, min_calls_in_window: 0 }
        })
        expect(invalid.status).toBe(422)
        const locs = invalid.body.detail.map((d: { readonly loc: ReadonlyArray<string | number> }) => d.loc.slice(1).join("."))
        for (
          const expected of [
            "name", "source_type", "max_concurrency", "retry_config.max_retries", "retry_config.retry_delay_seconds",
            "schedule_config.timezone", "schedule_config.slots.0.day_of_week", "schedule_config.slots.0.start_time",
            "circuit_breaker.failure_threshold", "circuit_breaker.window_seconds", "circuit_breaker.min_calls_in_window"
          ]
        ) expect(locs, expected).toContain(expected)

        const otherOrg = yield* seedOrganization()
        const foreignKey = yield* create(otherOrg.apiKey, { name: "x", workflow_id: setup.agent.id, source_type: "csv", source_id: key })
        expect(foreignKey.status).toBe(404) // the agent is not theirs either; then the key:
        const theirAgent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: otherOrg.apiKey, body: { name: "a", workflow_definition: plainDefinition() } })
        yield* call("POST", "/api/v1/organizations/telephony-configs", { apiKey: otherOrg.apiKey, body: { name: "s", config: { provider: "simulator" }, is_default_outbound: true } })
        const stolen = yield* create(otherOrg.apiKey, { name: "x", workflow_id: theirAgent.body.id, source_type: "csv", source_id: key })
        expect(stolen.status).toBe(400)
        expect(stolen.body.detail).toContain("is not an uploaded file of this organization")
        const noConfig = yield* create(setup.apiKey, { name: "x", workflow_id: setup.agent.id, source_type: "csv", source_id: key, telephony_configuration_id: 999999 })
        expect(noConfig).toEqual({ status: 400, body: { detail: "telephony_configuration_not_found" } })
        yield* call("PUT", `/api/v1/workflow/${setup.agent.id}/status`, { apiKey: setup.apiKey, body: { status: "archived" } })
        const archived = yield* create(setup.apiKey, { name: "x", workflow_id: setup.agent.id, source_type: "csv", source_id: key })
        expect(archived.status).toBe(409)
        const overnight = yield* call("PUT", `/api/v1/workflow/${setup.agent.id}/status`, { apiKey: setup.apiKey, body: { status: "active" } })
        expect(overnight.status).toBe(200)
        const scheduled = yield* create(setup.apiKey, {
          name: "Night shift", workflow_id: setup.agent.id, source_type: "csv", source_id: key,
          schedule_config: { timezone: "America/New_York", slots: [{ day_of_week: 4, start_time: "22:00", end_time: "02:00" }, { day_of_week: 5, start_time: "09:00", end_time: "24:00" }] }
        })
        expect(scheduled.status, JSON.stringify(scheduled.body)).toBe(200)
        expect(scheduled.body.schedule_config).toEqual({
          enabled: true, timezone: "America/New_York",
          slots: [{ day_of_week: 4, start_time: "22:00", end_time: "02:00" }, { day_of_week: 5, start_time: "09:00", end_time: "24:00" }]
        })
      }))

    it.effect("operations over the wire: the campaign back, a refused one 409 naming the state, another organization's 404; the list is paged (the rules: core/test/campaigns/Campaigns.test.ts)", () =>
      Effect.gen(function*() {
        const setup = yield* setupDialing({ simulator: { talk_seconds: 600 } })
        const key = yield* uploadCsv(setup.principal, csvOf(numbers(3, "+1646556")))
        const campaign = (yield* create(setup.apiKey, { name: "States", workflow_id: setup.agent.id, source_type: "csv", source_id: key })).body
        const op = (name: string) => call("POST", `/api/v1/campaign/${campaign.id}/${name}`, { apiKey: setup.apiKey })
        const patch = (body: unknown) => call("PATCH", `/api/v1/campaign/${campaign.id}`, { apiKey: setup.apiKey, body })

        expect((yield* patch({ name: "Renamed", max_concurrency: 2 })).body).toMatchObject({ name: "Renamed", max_concurrency: 2 })
        const early = yield* op("pause")
        expect(early.status).toBe(409)
        expect(early.body.detail).toContain("'draft'")
        expect((yield* op("start")).body).toMatchObject({ state: "running" })
        const running = yield* patch({ name: "no" })
        expect(running.status).toBe(409)
        expect(running.body.detail).toContain("running")
        const redial = yield* call("POST", `/api/v1/campaign/${campaign.id}/redial`, { apiKey: setup.apiKey, body: {} })
        expect(redial.status).toBe(409)
        expect(redial.body.detail).toContain("completed")
        const nothingAsked = yield* call("POST", `/api/v1/campaign/${campaign.id}/redial`, {
          apiKey: setup.apiKey,
          body: { retry_on_busy: false, retry_on_no_answer: false, retry_on_voicemail: false }
        })
        expect(nothingAsked.status).toBe(422)
        expect((yield* op("cancel")).body.state).toBe("canceled")
        const got = yield* call("GET", `/api/v1/campaign/${campaign.id}`, { apiKey: setup.apiKey })
        expect(got.body.logs.map((l: { readonly event: string }) => l.event)).toEqual(["campaign_created", "campaign_started", "campaign_canceled"])
        for (const entry of got.body.logs) expect(Object.keys(entry).sort()).toEqual(["details", "event", "level", "message", "ts"])
        const list = yield* call("GET", "/api/v1/campaign/?limit=1", { apiKey: setup.apiKey })
        expect(list.body).toMatchObject({ total_count: 1, page: 1, limit: 1, total_pages: 1 })
        expect(list.body.campaigns[0].id).toBe(campaign.id)
        const other = yield* seedOrganization()
        expect((yield* call("GET", `/api/v1/campaign/${campaign.id}`, { apiKey: other.apiKey })).status).toBe(404)
        expect((yield* call("POST", `/api/v1/campaign/${campaign.id}/start`, { apiKey: other.apiKey })).status).toBe(404)
      }))
  })
}
