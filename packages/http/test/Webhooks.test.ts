/**
 * Event webhooks (issue 15): endpoints managed through the API; events written to the outbox with the
 * change they report and delivered to a real local HTTP receiver, signed per Standard Webhooks
 * (checked with the `standardwebhooks` library's own verifier), retried after 500s and timeouts, in
 * order per run, with a delivery log, re-sends, endpoints disabled after failing too long, and private
 * targets refused. On SQLite and PostgreSQL. The crash case (kill -9) is in `WebhooksCrash.test.ts`.
 */
import { OrganizationId } from "@agentline/api/Ids"
import { WebhookDeliveriesPage } from "@agentline/api/webhooks/Webhooks"
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { WebhookOutbox } from "@agentline/core/webhooks/WebhookOutbox"
import { expect, layer } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { Webhook } from "standardwebhooks"
import { csvOf, numbers, settle, setupDialing, uploadCsv } from "./DispatchHarness.js"
import { definition } from "./fixtures.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { type Received, type Receiver, startReceiver } from "./WebhookReceiver.js"
import { campaignRequest, decode, locsOf, WebhookEvent } from "./Wire.js"
import * as NodeWebhookTransport from "../src/webhooks/NodeWebhookTransport.js"

const HOOKS = "/api/v1/organizations/webhooks"
const ALL_EVENTS = ["run.started", "run.ended", "campaign.state_changed", "campaign.completed"]

const webhookSettings = {
  allowPrivate: true,
  pollMillis: 1000,
  timeoutMillis: 300,
  retryDelaysMillis: [5_000, 60_000, 600_000],
  disableAfterMillis: 60_000
}

const receiver = Effect.acquireRelease(Effect.promise(() => startReceiver()), (r) => Effect.promise(() => r.close()))

/** Steps the TestClock (the outbox is polled on it) until `done` holds. */
const deliverUntil = (done: () => boolean, stepMillis = 1000, maxSteps = 400) =>
  Effect.gen(function*() {
    for (let step = 0; step < maxSteps; step++) {
      if (done()) return
      yield* TestClock.adjust(stepMillis)
      yield* settle(20)
    }
    return yield* Effect.dieMessage("the receiver did not get what the test waited for")
  })

/**
 * A request verified with the endpoint's secret by the library's own verifier, as a receiver would:
 * throws on a bad signature. The verifier also refuses timestamps five minutes from its clock, and the
 * server's clock here is the TestClock (which starts in 1970): the verifier is run at the request's time.
 */
const verify = (secret: string, request: { readonly body: string; readonly headers: Record<string, string> }): WebhookEvent => {
  const now = Date.now
  Date.now = () => Number(request.headers["webhook-timestamp"]) * 1000
  try {
    return decode(WebhookEvent, new Webhook(secret).verify(request.body, request.headers))
  } finally {
    Date.now = now
  }
}

/** The event a request carries (not verified: for waiting on deliveries). */
const eventOf = (request: Received): WebhookEvent => decode(WebhookEvent, request.json)

const verifyAll = (secret: string, r: Receiver) => r.received().map((request) => verify(secret, request))

const createEndpoint = (apiKey: string, url: string, eventTypes: ReadonlyArray<string> = ALL_EVENTS) =>
  Effect.map(call("POST", HOOKS, { apiKey, body: { url, description: "CRM", event_types: eventTypes } }), (r) => {
    expect(r.status).toBe(200)
    return r.body as { id: number; secret: string }
  })

for (const dialect of dialects) {
  layer(TestApp(dialect, { webhooks: webhookSettings }), { timeout: "180 seconds" })(`Event webhooks [${dialect}]`, (it) => {
    it.effect("endpoints: the secret is shown once (create, rotate); list, update, delete; every bad field is a 422 item", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        const created = yield* createEndpoint(org.apiKey, "https://crm.example.com/hooks", ["run.ended"])
        expect(created).toMatchObject({ url: "https://crm.example.com/hooks", description: "CRM", event_types: ["run.ended"], enabled: true })
        expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
        const listed = yield* call("GET", HOOKS, { apiKey: org.apiKey })
        expect(listed.body.endpoints.length).toBe(1)
        expect(JSON.stringify(listed.body)).not.toContain(created.secret.slice(6))
        expect((yield* call("GET", `${HOOKS}/${created.id}`, { apiKey: org.apiKey })).body.secret).toBeUndefined()

        const updated = yield* call("PATCH", `${HOOKS}/${created.id}`, {
          apiKey: org.apiKey,
          body: { event_types: ["run.started", "run.ended"], enabled: false }
        })
        expect(updated.body).toMatchObject({ event_types: ["run.started", "run.ended"], enabled: false, url: "https://crm.example.com/hooks" })
        const rotated = yield* call("POST", `${HOOKS}/${created.id}/rotate-secret`, { apiKey: org.apiKey })
        expect(rotated.body.secret).toMatch(/^whsec_/)
        expect(rotated.body.secret).not.toBe(created.secret)

        const bad = yield* call("POST", HOOKS, { apiKey: org.apiKey, body: { url: "ftp://example.com/x", event_types: ["run.exploded"] } })
        expect(bad.status).toBe(422)
        expect(locsOf(bad.body)).toEqual(expect.arrayContaining(["body.url", "body.event_types.0"]))
        expect((yield* call("POST", HOOKS, { apiKey: org.apiKey, body: { url: "https://a.example", event_types: [] } })).status).toBe(422)

        // Another organization sees none of it.
        const other = yield* seedOrganization()
        expect((yield* call("GET", `${HOOKS}/${created.id}`, { apiKey: other.apiKey })).status).toBe(404)
        expect((yield* call("DELETE", `${HOOKS}/${created.id}`, { apiKey: other.apiKey })).status).toBe(404)
        expect((yield* call("DELETE", `${HOOKS}/${created.id}`, { apiKey: org.apiKey })).status).toBe(200)
        expect((yield* call("GET", `${HOOKS}/${created.id}`, { apiKey: org.apiKey })).status).toBe(404)
        expect((yield* call("GET", HOOKS)).status).toBe(401)
      }))

    it.effect("a campaign's runs and state changes reach the endpoint signed, each run's events in order, with outcome and links", () =>
      Effect.scoped(Effect.gen(function*() {
        const r = yield* receiver
        const setup = yield* setupDialing({ simulator: { ring_seconds: 1, talk_seconds: 3 } })
        const endpoint = yield* createEndpoint(setup.apiKey, r.url)
        const campaigns = yield* Campaigns
        const phones = numbers(6, "+1415333")
        const created = yield* campaigns.create(setup.principal, campaignRequest({
          name: "Hooks",
          workflow_id: setup.agent.id,
          source_type: "csv",
          source_id: yield* uploadCsv(setup.principal, csvOf(phones)),
          max_concurrency: 3
        })).pipe(Effect.orDie)
        yield* campaigns.start(setup.principal, created.id).pipe(Effect.orDie)
        yield* deliverUntil(() => r.received().some((q) => eventOf(q).type === "campaign.completed"))
        yield* deliverUntil(() => r.received().filter((q) => eventOf(q).type === "run.ended").length === 6)

        const events = verifyAll(endpoint.secret, r)
        const types = events.map((e) => e.type)
        expect(types.filter((t) => t === "run.started").length).toBe(6)
        expect(types.filter((t) => t === "run.ended").length).toBe(6)
        // Each run: started, then ended.
        for (const runId of new Set(events.filter((e) => e.type === "run.started").map((e) => e.data.run_id))) {
          const own = events.filter((e) => e.data.run_id === runId).map((e) => e.type)
          expect(own).toEqual(["run.started", "run.ended"])
        }
        const ended = events.find((e) => e.type === "run.ended")!
        expect(ended.data).toMatchObject({
          workflow_id: setup.agent.id,
          campaign_id: created.id,
          provider: "simulator",
          outcome: "completed",
          disposition: "completed",
          duration_seconds: 3
        })
        expect(ended.data.links?.run).toMatch(new RegExp(`/api/v1/workflow/${setup.agent.id}/runs/${ended.data.run_id}$`))
        // The campaign's own events, in order: started, then completed (state change and summary).
        const campaignEvents = events.filter((e) => e.type.startsWith("campaign."))
        expect(campaignEvents.map((e) => [e.type, e.data.state])).toEqual([
          ["campaign.state_changed", "running"],
          ["campaign.state_changed", "completed"],
          ["campaign.completed", "completed"]
        ])
        expect(campaignEvents[2]!.data.counters).toMatchObject({ total_rows: 6, processed_rows: 6, failed_rows: 0 })
        // Standard Webhooks headers: one id per message, a timestamp in seconds.
        const first = r.received()[0]!
        expect(first.headers["webhook-id"]).toMatch(/^msg_[0-9a-f]{32}$/)
        expect(first.headers["webhook-timestamp"]).toMatch(/^\d+$/)
        expect(new Set(r.received().map((q) => q.headers["webhook-id"])).size).toBe(r.received().length)
        // A wrong secret does not verify.
        expect(() => verify("whsec_" + Buffer.alloc(24, 7).toString("base64"), first)).toThrow("No matching signature found")
        expect(() => verify(endpoint.secret, { ...first, body: first.body.replace("{", "{ ") })).toThrow()

        const log = yield* call("GET", `${HOOKS}/${endpoint.id}/deliveries?limit=100`, { apiKey: setup.apiKey })
        expect(log.body.total_count).toBe(r.received().length)
        expect(decode(WebhookDeliveriesPage, log.body).deliveries.every((d) => d.status === "delivered" && d.attempts.length === 1 && d.attempts[0].status_code === 200))
          .toBe(true)
      })))

    it.effect("a 500 and a timeout are retried on the schedule; the run's later event waits its turn; the log shows every attempt; a re-send resends", () =>
      Effect.scoped(Effect.gen(function*() {
        const r = yield* receiver
        const setup = yield* setupDialing({ simulator: { ring_seconds: 1, talk_seconds: 1 } })
        const endpoint = yield* createEndpoint(setup.apiKey, r.url, ["run.started", "run.ended"])
        // run.started: 500, then no answer in time, then 200 (on the 2nd retry); run.ended waits meanwhile.
        r.script([500, "hang"])
        const agent = yield* call("GET", `/api/v1/workflow/fetch/${setup.agent.id}`, { apiKey: setup.apiKey })
        const placed = yield* call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, {
          apiKey: setup.apiKey,
          body: { phone_number: "+14155550190" }
        })
        expect(placed.status).toBe(200)
        // The call ends after ~2 s; the first retry is 5 s after the 500, the second 60 s after the timeout.
        yield* deliverUntil(() => r.received().length >= 2)
        const received = r.received()
        // (run.ended may follow at once: a delivered event wakes the worker for the next in line.)
        expect(received.slice(0, 2).map((q) => [eventOf(q).type, q.status])).toEqual([["run.started", 500], ["run.started", 200]])
        yield* deliverUntil(() => r.received().length >= 3)
        expect(eventOf(r.received()[2]!).type).toBe("run.ended")
        // The same message each time: one webhook-id for run.started across its attempts.
        expect(received[0]!.headers["webhook-id"]).toBe(received[1]!.headers["webhook-id"])

        const log = yield* call("GET", `${HOOKS}/${endpoint.id}/deliveries`, { apiKey: setup.apiKey })
        const started = decode(WebhookDeliveriesPage, log.body).deliveries.find((d) => d.event_type === "run.started")
        if (started === undefined) throw new Error("the log has no run.started delivery")
        expect(started.status).toBe("delivered")
        expect(started.attempts.map((a) => a.status_code)).toEqual([500, null, 200])
        expect(started.attempts[1].error).toContain("no answer within 300 ms")
        expect(started.attempts.every((a) => Number.isInteger(a.latency_ms) && a.latency_ms >= 0)).toBe(true)
        // Retries on the schedule: 5 s after the first attempt, then 60 s after the second.
        const at = started.attempts.map((a) => Date.parse(a.at))
        expect(at[1] - at[0]).toBeGreaterThanOrEqual(5_000)
        expect(at[2] - at[1]).toBeGreaterThanOrEqual(60_000)

        const resent = yield* call("POST", `${HOOKS}/${endpoint.id}/deliveries/${started.id}/resend`, { apiKey: setup.apiKey })
        expect(resent.body).toMatchObject({ id: started.id, status: "pending" })
        yield* deliverUntil(() => r.received().length >= 4)
        expect(r.received()[3]!.headers["webhook-id"]).toBe(received[0]!.headers["webhook-id"])
        expect((yield* call("POST", `${HOOKS}/${endpoint.id}/deliveries/999999/resend`, { apiKey: setup.apiKey })).status).toBe(404)
      })))

    it.effect("an endpoint failing for longer than the limit is disabled with its reason and gets nothing more until enabled", () =>
      Effect.scoped(Effect.gen(function*() {
        const r = yield* receiver
        const setup = yield* setupDialing({ simulator: { ring_seconds: 1, talk_seconds: 1 } })
        const failing = yield* createEndpoint(setup.apiKey, r.url, ["run.started"])
        r.script(Array.from({ length: 10 }, () => 503))
        const agent = yield* call("GET", `/api/v1/workflow/fetch/${setup.agent.id}`, { apiKey: setup.apiKey })
        const dial = (phone: string) =>
          call("POST", `/api/v1/public/agent/workflow/${agent.body.workflow_uuid}`, { apiKey: setup.apiKey, body: { phone_number: phone } })
        yield* dial("+14155550191")
        // 503s at 0 s, 5 s and 65 s: failing for over the minute, the endpoint is disabled.
        for (let i = 0; i < 40; i++) {
          const endpoint = (yield* call("GET", `${HOOKS}/${failing.id}`, { apiKey: setup.apiKey })).body
          if (!endpoint.enabled) break
          yield* TestClock.adjust(5_000)
          yield* settle(30)
        }
        const disabled = (yield* call("GET", `${HOOKS}/${failing.id}`, { apiKey: setup.apiKey })).body
        expect(disabled.enabled).toBe(false)
        expect(disabled.disabled_reason).toContain("every delivery has failed since")
        expect(disabled.failing_since).not.toBeNull()
        const attemptsBefore = r.received().length
        expect(attemptsBefore).toBeGreaterThanOrEqual(3)
        // A disabled endpoint is not sent to, and new events are not queued for it.
        yield* dial("+14155550192")
        for (let i = 0; i < 10; i++) {
          yield* TestClock.adjust(5_000)
          yield* settle(20)
        }
        expect(r.received().length).toBe(attemptsBefore)
        const log = (yield* call("GET", `${HOOKS}/${failing.id}/deliveries`, { apiKey: setup.apiKey })).body
        expect(log.total_count).toBe(1)

        // Enabled again: the reason is gone, and the pending delivery goes out.
        const enabled = yield* call("PATCH", `${HOOKS}/${failing.id}`, { apiKey: setup.apiKey, body: { enabled: true } })
        expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null })
      })))
  })

  // A generous timeout: what is measured is how many attempts one poll starts, not how a loaded machine
  // answers within 300 ms.
  layer(TestApp(dialect, { webhooks: { ...webhookSettings, timeoutMillis: 10_000 } }), { timeout: "120 seconds" })(
    `Event webhooks: a backlog [${dialect}]`,
    (it) => {
      it.effect("a backlog to one endpoint drains as fast as it answers, not a few per poll; each run's events in order", () =>
        Effect.scoped(Effect.gen(function*() {
          const r = yield* receiver
          const org = yield* seedOrganization()
          yield* createEndpoint(org.apiKey, r.url, ["run.started"])
          const outbox = yield* WebhookOutbox
          const runs = 30
          for (let seq = 0; seq < 3; seq++) {
            yield* outbox.emitAll(Array.from({ length: runs }, (_, run) => ({
              organizationId: OrganizationId.make(org.principal.organizationId),
              type: "run.started" as const,
              orderingKey: `run:${run}`,
              at: new Date(0).toISOString(),
              data: { run_id: run, seq }
            })))
          }
          // One poll (the TestClock moves once): before, it started at most 4 attempts per endpoint and the
          // rest waited for the next polls, 4 a second; now each answer makes room for the next at once.
          yield* TestClock.adjust(1000)
          const deadline = Date.now() + 20_000
          // More than two polls' worth at 16 a poll (the clock's one step may run the poll twice).
          const enough = runs * 2
          while (r.received().length < enough && Date.now() < deadline) yield* settle(20)
          expect(r.received().length).toBeGreaterThanOrEqual(enough)
          yield* deliverUntil(() => r.received().length >= runs * 3)
          // At least once: an attempt that timed out may have reached the receiver too (same webhook-id).
          const seen = new Map<number, number>()
          const messages = new Set<string>()
          for (const request of r.received()) {
            if (messages.has(request.headers["webhook-id"]!)) continue
            messages.add(request.headers["webhook-id"]!)
            const { run_id, seq } = eventOf(request).data
            if (run_id === undefined || seq === undefined) throw new Error(`an event without run_id and seq: ${request.body}`)
            expect([run_id, seq]).toEqual([run_id, (seen.get(run_id) ?? -1) + 1])
            seen.set(run_id, seq)
          }
          expect(messages.size).toBe(runs * 3)
        })))
    }
  )
}

layer(TestApp("sqlite"), { timeout: "60 seconds" })("Event webhooks: private targets", (it) => {
  it.effect("private, loopback and link-local targets are refused by default with a message that says how to allow them", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      for (const url of ["http://127.0.0.1:9/x", "http://localhost/x", "http://10.1.2.3/", "http://169.254.169.254/latest", "http://[::1]/"]) {
        const refused = yield* call("POST", HOOKS, { apiKey: org.apiKey, body: { url, event_types: ["run.ended"] } })
        expect(refused.status).toBe(422)
        expect(refused.body.detail[0].loc).toEqual(["body", "url"])
        expect(refused.body.detail[0].msg).toContain("AGENTLINE_WEBHOOK_ALLOW_PRIVATE")
      }
      expect((yield* call("POST", HOOKS, { apiKey: org.apiKey, body: { url: "https://hooks.example.com/", event_types: ["run.ended"] } })).status)
        .toBe(200)
    }))

  it.effect("a loopback name written with a trailing dot or in capitals is refused too", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      for (const url of ["http://LOCALHOST./x", "http://localhost../", "http://Api.LocalHost./", "http://127.0.0.1./"]) {
        const refused = yield* call("POST", HOOKS, { apiKey: org.apiKey, body: { url, event_types: ["run.ended"] } })
        expect([url, refused.status]).toEqual([url, 422])
      }
    }))

  it.effect("an agent's webhook nodes follow the same rule, at save: private targets 422, a templated host is checked when sent", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      const withHook = (endpoint_url: string) => {
        const workflow = definition()
        return {
          ...workflow,
          nodes: [...workflow.nodes, { id: "crm", type: "webhook", position: { x: 300, y: 0 }, data: { name: "CRM", endpoint_url } }]
        }
      }
      for (const url of ["http://127.0.0.1:9/x", "http://LOCALHOST./hook", "http://169.254.169.254/latest", "ftp://files.example.com/x"]) {
        const refused = yield* call("POST", "/api/v1/workflow/create/definition", {
          apiKey: org.apiKey,
          body: { name: "Hooked", workflow_definition: withHook(url) }
        })
        expect([url, refused.status]).toEqual([url, 422])
        expect(refused.body.detail[0].loc).toEqual(["body", "workflow_definition", "nodes", "crm", "endpoint_url"])
      }
      const created = yield* call("POST", "/api/v1/workflow/create/definition", {
        apiKey: org.apiKey,
        body: { name: "Hooked", workflow_definition: withHook("https://crm.example.com/runs/{{workflow_run_id}}") }
      })
      expect(created.status).toBe(200)
      // The same check on an update.
      const updated = yield* call("PUT", `/api/v1/workflow/${created.body.id}`, {
        apiKey: org.apiKey,
        body: { workflow_definition: withHook("http://10.0.0.8/hook") }
      })
      expect(updated.status).toBe(422)
      // A host that is a template is known only when the run's values are: checked when sent.
      for (const url of ["https://{{initial_context.crm_host}}/runs", "", "{{initial_context.url}}"]) {
        const templated = yield* call("PUT", `/api/v1/workflow/${created.body.id}`, {
          apiKey: org.apiKey,
          body: { workflow_definition: withHook(url) }
        })
        expect([url, templated.status]).toEqual([url, 200])
      }
    }))

  it.effect("the transport connects only to public addresses: a name that resolves to loopback is refused at connection time", () =>
    Effect.scoped(Effect.gen(function*() {
      const r = yield* receiver
      const port = new URL(r.url).port
      const send = (url: string, allowPrivate: boolean) =>
        NodeWebhookTransport.send({ url, headers: { "content-type": "application/json" }, body: "{}", timeoutMillis: 2000, allowPrivate })
      const viaName = yield* send(`http://localhost:${port}/hooks`, false)
      expect(viaName.status).toBeNull()
      expect(viaName.error).toContain("private address")
      const viaIp = yield* send(`http://127.0.0.1:${port}/hooks`, false)
      expect(viaIp.status).toBeNull()
      expect(r.received().length).toBe(0)
      expect((yield* send(`http://localhost:${port}/hooks`, true)).status).toBe(200)
      expect(r.received().length).toBe(1)
    })))
})
