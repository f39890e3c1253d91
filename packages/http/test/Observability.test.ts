/**
 * Issue 25, as an operator sees it: a real `agentline serve` process (PostgreSQL when available, for
 * the pool's metrics; else SQLite) with OTLP traces, `/metrics` on its own port behind a token, and JSON
 * logs, running a simulator campaign, a single call ended by a signed HTTP callback, and event webhooks
 * (one receiver answering, one failing):
 *
 * - an in-process OTLP receiver gets each call's trace: `agentline.call` at the root, the dial, the
 *   provider's events (the HTTP callback's linked to its request span), the run's save and the run's
 *   webhook deliveries as its children; every parent of the trace is in it;
 * - one call that talks (the simulator's callee says a line in espeak-ng's voice, the server hears it
 *   with pocketsphinx and answers through a fake OpenAI-compatible LLM on 127.0.0.1 and espeak-ng): its
 *   trace has the media session, the conversation and the caller's turn with each stage's latency as
 *   attributes (the tool call spans: `voice/ToolConversation.test.ts`, in process);
 * - `/metrics`, read with a strict parser of the exposition format (`PrometheusText.ts`), shows every metric named in docs/production.md
 *   moving (the frames' metrics: `voice/SimulatorConversation.test.ts`, whose simulated callees talk,
 *   and `@agentline/voice`'s Speaker test for late frames);
 * - the logs are JSON lines, a call's lines carry its ids (and trace ids), and no line of the whole run
 *   contains a secret it was given;
 * - SIGTERM with a call in progress: readiness answers 503 at once while liveness, the API and the
 *   carrier's callbacks are still answered; the call ends, the drain ends, then the listener closes and
 *   the process exits 0.
 */
import { Testing } from "@agentline/sql"
import { reply, startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as NodeCrypto from "node:crypto"
import * as NodeHttp from "node:http"
import { api, bootstrap, freePort, prepareCampaign, startServer, tempDir, waitFor } from "./Processes.js"
import { attribute, type OtlpSpan, startOtlpReceiver, traceOfAttempt } from "./OtlpReceiver.js"
import { type Family, parse, total } from "./PrometheusText.js"

// ----------------------------------------------------------------------------- webhook receivers

const receiver = async (status: number) => {
  let count = 0
  const server = NodeHttp.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      count++
      res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    count: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

// ---------------------------------------------------------------------------------- metrics

const scrape = async (url: string, token: string): Promise<Map<string, Family>> => {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toContain("text/plain")
  return parse(await response.text())
}

// ------------------------------------------------------------------------------------- the test

const dialect = Testing.dialects.includes("pg") ? "pg" : "sqlite"

describe("observability of a running server (issue 25)", () => {
  it.live(`[${dialect}] traces, metrics, JSON logs and the graceful stop of a simulator campaign`, () =>
    Effect.gen(function*() {
      const db = dialect === "pg" ? (yield* Testing.freshPgDatabase).url : undefined
      const dataDir = tempDir()
      const otlp = yield* Effect.acquireRelease(Effect.promise(startOtlpReceiver), (r) => Effect.promise(r.close))
      const good = yield* Effect.acquireRelease(Effect.promise(() => receiver(200)), (r) => Effect.promise(r.close))
      const bad = yield* Effect.acquireRelease(Effect.promise(() => receiver(500)), (r) => Effect.promise(r.close))
      const metricsPort = yield* Effect.promise(freePort)
      const secrets = {
        metricsToken: `metrics-${NodeCrypto.randomBytes(12).toString("hex")}`,
        simulatorSecret: `sim-${NodeCrypto.randomBytes(12).toString("hex")}`,
        llmKey: `sk-${NodeCrypto.randomBytes(12).toString("hex")}`
      }
      // The language model of the call that talks: a fake OpenAI-compatible server on 127.0.0.1.
      const llm = yield* startFakeOpenAi([], () => reply("Good to hear."))
      const key = yield* Effect.promise(() => bootstrap(db, dataDir, "observed"))
      const server = yield* Effect.acquireRelease(
        Effect.promise(() =>
          startServer(db, dataDir, {
            AGENTLINE_LOG_FORMAT: "json",
            AGENTLINE_METRICS_PORT: String(metricsPort),
            AGENTLINE_METRICS_TOKEN: secrets.metricsToken,
            AGENTLINE_WEBHOOK_ALLOW_PRIVATE: "true",
            AGENTLINE_DISPATCHER_DRAIN_SECONDS: "60",
            AGENTLINE_LOG_LEVEL: "debug",
            OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
            OTEL_BSP_SCHEDULE_DELAY: "100",
            AGENTLINE_LLM: "openai:fake-model",
            OPENAI_BASE_URL: llm.url,
            OPENAI_API_KEY: secrets.llmKey
          })
        ),
        (s) => Effect.promise(s.kill)
      )
      const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`
      const call = (method: string, path: string, body?: unknown) => Effect.promise(() => api(server.url, key, method, path, body))

      // The metrics need the token, on their port and on the main one.
      expect((yield* Effect.promise(() => fetch(metricsUrl))).status).toBe(401)
      expect((yield* Effect.promise(() => fetch(`${server.url}/metrics`))).status).toBe(401)
      const before = yield* Effect.promise(() => scrape(metricsUrl, secrets.metricsToken))
      expect((yield* Effect.promise(() => fetch(`${server.url}/api/v1/health/ready`))).status).toBe(200)

      // A person logs in (the password passes through the server).
      const login = yield* Effect.promise(() =>
        fetch(`${server.url}/api/v1/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "admin@observed.test", password: "admin-password" })
        })
      )
      expect(login.status).toBe(200)

      // Event webhooks: one receiver answers, one fails (retried, then counted as failures).
      const hooks = [
        yield* call("POST", "/api/v1/organizations/webhooks", { url: good.url, event_types: ["run.started", "run.ended"] }),
        yield* call("POST", "/api/v1/organizations/webhooks", { url: bad.url, event_types: ["run.started"] })
      ]

      // A campaign at its limit (refills), and a long single call on a configuration with a webhook secret.
      const { agentId, fileKey } = yield* Effect.promise(() =>
        prepareCampaign(server.url, key, { contacts: 8, prefix: "+1415666", ringSeconds: 0, talkSeconds: 1, limit: 2 })
      )
      const longCalls = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        name: "long",
        config: { provider: "simulator", ring_seconds: 0, talk_seconds: 600, webhook_secret: secrets.simulatorSecret }
      })
      const campaign = yield* call("POST", "/api/v1/campaign/create", {
        name: "observed",
        workflow_id: agentId,
        source_type: "csv",
        source_id: fileKey,
        max_concurrency: 2,
        retry_config: { enabled: false }
      })
      yield* call("POST", `/api/v1/campaign/${campaign.id}/start`)
      const during = yield* Effect.promise(async () => {
        let seen: Map<string, Family> | undefined
        await waitFor("calls in progress in the metrics", async () => {
          seen = await scrape(metricsUrl, secrets.metricsToken)
          return total(seen, "agentline_calls_in_progress", (l) => l.campaign_id === String(campaign.id)) > 0
        })
        return seen!
      })
      yield* Effect.promise(() =>
        waitFor("the campaign's end", async () => (await api(server.url, key, "GET", `/api/v1/campaign/${campaign.id}`)).state === "completed")
      )

      // ------------------------------------------------------- one call that talks: its turn's span
      // The callee says one line and hangs up once the agent has answered it: one caller turn.
      const talking = yield* call("POST", "/api/v1/organizations/telephony-configs", {
        name: "talking",
        config: { provider: "simulator", ring_seconds: 0, callee_lines: ["Yes, I am interested."] }
      })
      const talker = yield* call("POST", "/api/v1/workflow/create/definition", {
        name: "talker",
        workflow_configurations: { smart_turn_stop_secs: 0.3 },
        workflow_definition: {
          nodes: [
            { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Ask about solar panels.", greeting: "Hello, this is Acme." } },
            { id: "end", type: "endCall", position: { x: 0, y: 1 }, data: { name: "End", prompt: "Bye" } }
          ],
          edges: [{ id: "e", source: "start", target: "end", data: { label: "end", condition: "done" } }]
        }
      })
      const talked = yield* call("POST", "/api/v1/telephony/initiate-call", {
        workflow_id: talker.id,
        phone_number: "+14155550177",
        telephony_configuration_id: talking.id
      })
      const talkedRunId = talked.workflow_run_id as number
      // The call's root span is exported when the call ends; the conversation's when the media session does.
      const talkedTrace = yield* Effect.promise(async () => {
        let found: { readonly root: OtlpSpan; readonly spans: ReadonlyArray<OtlpSpan> } | undefined
        await waitFor("the talking call's trace", () => {
          const root = otlp.spans.find((s) => s.name === "agentline.call" && Number(attribute(s, "agentline.run_id")) === talkedRunId)
          const spans = root === undefined ? [] : otlp.spans.filter((s) => s.traceId === root.traceId)
          found = root === undefined ? undefined : { root, spans }
          return spans.some((s) => s.name === "VoiceAgent.converse")
        })
        return found!
      })
      {
        const { root, spans } = talkedTrace
        expect(attribute(root, "agentline.outcome")).toBe("completed")
        const childrenOf = (parent: OtlpSpan, name: string) => spans.filter((s) => s.parentSpanId === parent.spanId && s.name === name)
        const [media] = childrenOf(root, "agentline.call.media")
        expect(media, "the media session's span, under the call's").toBeDefined()
        const [conversation] = childrenOf(media!, "VoiceAgent.converse")
        expect(conversation, "the conversation's span").toBeDefined()
        const turns = childrenOf(conversation!, "agentline.voice.turn")
        expect(turns).toHaveLength(1)
        const turn = turns[0]!
        expect(attribute(turn, "agentline.turn.node")).toBe("start")
        const stage = (name: string) => Number(attribute(turn, `agentline.turn.${name}_ms`))
        for (const name of ["end_of_speech", "recognition", "first_token", "first_audio"]) {
          expect(Number.isFinite(stage(name)) && stage(name) >= 0 && stage(name) < 30_000, `${name}: ${stage(name)}`).toBe(true)
        }
        expect(stage("first_audio")).toBeGreaterThanOrEqual(stage("first_token"))
        expect(stage("first_token")).toBeGreaterThanOrEqual(stage("recognition"))
        // What the callee said (as pocketsphinx heard espeak-ng: words, not necessarily the line's) reached the model.
        const messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }> = llm.received.at(-1)?.body.messages ?? []
        expect(messages.filter((m) => m.role === "user" && String(m.content).trim() !== "")).toHaveLength(1)
        // Every span of the trace has its parent in it.
        const ids = new Set(spans.map((s) => s.spanId))
        expect(spans.filter((s) => s !== root && !ids.has(s.parentSpanId ?? "")).map((s) => s.name)).toEqual([])
      }

      // Every failed attempt of the failing receiver is counted; wait for the first ones (retries come seconds apart).
      const after = yield* Effect.promise(async () => {
        let seen: Map<string, Family> | undefined
        await waitFor("webhook deliveries and failures in the metrics", async () => {
          seen = await scrape(metricsUrl, secrets.metricsToken)
          return total(seen, "agentline_webhook_delivery_lag_seconds") > total(before, "agentline_webhook_delivery_lag_seconds") &&
            total(seen, "agentline_webhook_delivery_failures_total") > total(before, "agentline_webhook_delivery_failures_total")
        })
        return seen!
      })

      // ---------------------------------------------------------------------------- metrics moved
      const increased = (name: string, where?: (labels: Record<string, string>) => boolean) =>
        expect(total(after, name, where), name).toBeGreaterThan(total(before, name, where))
      expect(total(during, "agentline_calls_in_progress", (l) => l.campaign_id === String(campaign.id))).toBeGreaterThan(0)
      expect(total(after, "agentline_calls_in_progress", (l) => l.campaign_id === String(campaign.id))).toBe(0)
      expect(total(after, "agentline_call_attempts_total", (l) => l.outcome === "completed" && l.provider === "simulator") -
        total(before, "agentline_call_attempts_total", (l) => l.outcome === "completed")).toBe(8 + 1) // the campaign's and the call that talked
      increased("agentline_turn_latency_seconds", (l) => l.stage === "first_audio")
      increased("agentline_claim_duration_seconds")
      increased("agentline_refill_duration_seconds")
      increased("agentline_webhook_delivery_lag_seconds")
      increased("agentline_webhook_delivery_failures_total", (l) => l.will_retry === "true")
      increased("agentline_http_request_duration_seconds", (l) => l.route === "/api/v1/campaign/:campaign_id" && l.status === "200")
      expect(after.get("agentline_http_request_duration_seconds")!.type).toBe("histogram")
      for (const name of ["process_resident_memory_bytes", "nodejs_heap_size_used_bytes", "nodejs_heap_size_total_bytes"]) {
        expect(total(after, name), name).toBeGreaterThan(0)
        expect(total(after, name), name).not.toBe(total(before, name))
      }
      for (const name of ["nodejs_eventloop_lag_mean_seconds", "nodejs_eventloop_lag_p99_seconds", "nodejs_eventloop_lag_max_seconds"]) {
        expect(Number.isFinite(total(after, name)) && after.has(name), name).toBe(true)
      }
      expect(total(after, "nodejs_eventloop_lag_max_seconds")).toBeGreaterThan(0)
      if (dialect === "pg") {
        expect(total(after, "agentline_db_pool_connections", (l) => l.state === "total")).toBeGreaterThan(0)
        expect(total(after, "agentline_db_pool_max_connections")).toBe(10)
      }

      // ----------------------------------------------------- a call in progress, then SIGTERM
      const single = yield* call("POST", "/api/v1/telephony/initiate-call", {
        workflow_id: agentId,
        phone_number: "+14155550199",
        telephony_configuration_id: longCalls.id
      })
      const runId = single.workflow_run_id as number
      // Its answer is a span of its own, exported at once: the attempt and the simulator's call id.
      const answered = yield* Effect.promise(async () => {
        let found: OtlpSpan | undefined
        await waitFor("the single call's answer in the traces", () => {
          const ended = new Set(otlp.spans.filter((s) => s.name === "agentline.call").map((s) => attribute(s, "agentline.attempt_id")))
          found = otlp.spans.find((s) =>
            s.name === "agentline.call.event" && attribute(s, "agentline.event") === "answered" &&
            !ended.has(attribute(s, "agentline.attempt_id"))
          )
          return found !== undefined
        })
        return found!
      })
      const attemptId = Number(attribute(answered, "agentline.attempt_id"))
      const providerCallId = String(attribute(answered, "agentline.provider_call_id"))

      // Its run.started is delivered while it talks (the webhook worker polls every second).
      yield* Effect.promise(() =>
        waitFor("the single call's run.started delivery", () =>
          otlp.spans.some((s) => s.name === "agentline.webhook.deliver" && Number(attribute(s, "agentline.run_id")) === runId))
      )

      const stopped = server.stop()
      const ready = async () => {
        const response = await fetch(`${server.url}/api/v1/health/ready`)
        return { status: response.status, body: await response.json() }
      }
      yield* Effect.promise(() => waitFor("readiness to turn 503", async () => (await ready()).status === 503, 30_000))
      expect((yield* Effect.promise(ready)).body).toMatchObject({ status: "draining", checks: { database: "ok", migrations: "ok" } })
      // Still answering while the call drains: liveness, the API, and the carrier's callback that ends the call.
      expect((yield* Effect.promise(() => fetch(`${server.url}/api/v1/health`))).status).toBe(200)
      expect((yield* call("GET", `/api/v1/campaign/${campaign.id}`)).state).toBe("completed")
      const callbackUrl = `${server.url}/api/v1/telephony/callbacks/simulator/${attemptId}`
      const callbackBody = JSON.stringify({ call_id: providerCallId, event: "ended", outcome: "completed", duration: 3 })
      const signature = NodeCrypto.createHmac("sha256", secrets.simulatorSecret).update(callbackUrl).update("\n").update(callbackBody).digest("hex")
      const callback = yield* Effect.promise(() =>
        fetch(callbackUrl, { method: "POST", headers: { "content-type": "application/json", "x-simulator-signature": signature }, body: callbackBody })
      )
      expect(callback.status).toBe(200)
      expect(yield* Effect.promise(() => stopped)).toBe(0)
      const output = server.output()
      expect(output).toContain("handed over")
      // In order: readiness 503, the drain, the carrier's callback answered during it, the drain's end,
      // and only then the listener closes (the callback's own request may finish after that line: closing
      // waits for requests in flight).
      const logLines = output.split("\n")
      const lineOf = (what: string, test: (line: string) => boolean) => {
        const index = logLines.findIndex(test)
        expect(index, what).toBeGreaterThanOrEqual(0)
        return index
      }
      const at = (text: string) => lineOf(text, (l) => l.includes(text))
      const callbackAnswered = lineOf("the callback's response", (l) => l.includes("Sent HTTP response") && l.includes(`/api/v1/telephony/callbacks/simulator/${attemptId}`))
      expect(at("readiness answers 503")).toBeLessThan(at("Dispatcher stopping"))
      // The call ended here, by the callback, rather than being handed over at the drain's deadline.
      expect(at("Dispatcher stopping")).toBeLessThan(at("Dispatcher stopped: 1 calls ended here, 0 handed over"))
      expect(callbackAnswered).toBeGreaterThan(at("Dispatcher stopping"))
      expect(at("Dispatcher stopped")).toBeLessThan(at("Drained: closing the listener"))

      // ------------------------------------------------------------------------ traces
      const trace = traceOfAttempt(otlp.spans, attemptId)
      expect(trace, "the single call's trace").toBeDefined()
      const { root, spans } = trace!
      expect(root.parentSpanId ?? "").toBe("")
      expect(Number(attribute(root, "agentline.run_id"))).toBe(runId)
      expect(attribute(root, "agentline.outcome")).toBe("completed")
      const children = spans.filter((s) => s.parentSpanId === root.spanId)
      const names = new Set(children.map((s) => s.name))
      for (const name of ["agentline.call.dial", "agentline.call.event", "agentline.call.save", "agentline.webhook.deliver"]) {
        expect(names, name).toContain(name)
      }
      expect(children.filter((s) => s.name === "agentline.call.event").map((s) => attribute(s, "agentline.event")))
        .toEqual(expect.arrayContaining(["initiated", "ringing", "answered", "ended"]))
      // The callback that ended it came over HTTP: its span is in the call's trace, linked to the request's.
      const ended = children.find((s) => s.name === "agentline.call.event" && attribute(s, "agentline.event") === "ended")!
      expect(attribute(ended, "agentline.durable")).toBe(true)
      const linked = otlp.spans.find((s) => s.spanId === ended.links?.[0]?.spanId)
      expect(linked?.name).toBe("Calls.callback")
      const request = otlp.spans.find((s) => s.spanId === linked!.parentSpanId)
      expect(request?.name).toBe("http.server POST")
      expect(attribute(request!, "http.route")).toBe("/api/v1/telephony/callbacks/:provider/:attempt_id")
      expect(request!.traceId).not.toBe(root.traceId)
      // Every span of the trace has its parent in it.
      const ids = new Set(spans.map((s) => s.spanId))
      expect(spans.filter((s) => s !== root && !ids.has(s.parentSpanId ?? ""))).toEqual([])
      expect(spans.length).toBeGreaterThan(children.length) // SQL statements and the like under the children
      // A campaign call's trace links to the claim of its batch.
      const campaignCall = otlp.spans.find((s) => s.name === "agentline.call" && Number(attribute(s, "agentline.campaign_id")) === campaign.id)!
      const claim = otlp.spans.find((s) => s.spanId === campaignCall.links?.[0]?.spanId)
      expect(claim?.name).toBe("agentline.dispatch.claim")

      // -------------------------------------------------------------------------------- logs
      const lines = output.split("\n").filter((l) => l.trim() !== "")
      const notJson = lines.filter((l) => !l.startsWith("{"))
      expect(notJson).toEqual([])
      const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(parsed.every((l) => typeof l.timestamp === "string" && typeof l.level === "string")).toBe(true)
      const callEnd = parsed.find((l) => l.message === "call ended: completed after 1 s" && l.campaign_id === campaign.id)
      expect(callEnd).toMatchObject({ level: "DEBUG", organization_id: expect.any(Number), run_id: expect.any(Number), attempt_id: expect.any(Number) })
      expect(callEnd!.trace_id).toMatch(/^[0-9a-f]{32}$/)
      const callbackLine = parsed.find((l) => l.message === "Sent HTTP response" && String(l["http.url"]).includes("/telephony/callbacks/"))
      expect(callbackLine?.trace_id).toBe(request!.traceId)
      // One span per API request: each request's log line names its own `http.server` span, and every
      // such span has its line. The requests kept out of the traces (a credential in their URL) have no
      // trace ids in the logs either.
      const requestLines = parsed.filter((l) => l.message === "Sent HTTP response")
      const traced = requestLines.filter((l) => l.span_id !== undefined)
      const serverSpans = otlp.spans.filter((s) => s.name.startsWith("http.server "))
      expect(traced.length).toBeGreaterThan(20)
      expect(traced.map((l) => l.span_id).sort()).toEqual(serverSpans.map((s) => s.spanId).sort())
      expect(requestLines.filter((l) => l.span_id === undefined).map((l) => String(l["http.url"])).filter((url) => !url.includes("REDACTED")))
        .toEqual([])
      expect(requestLines.every((l) => l.trace_id === undefined || /^(?!0+$)[0-9a-f]{32}$/.test(String(l.trace_id)))).toBe(true)
      expect(new Set(serverSpans.map((s) => s.spanId)).size).toBe(serverSpans.length)
      // No secret of this run is in its logs or its traces.
      const given = [
        secrets.metricsToken,
        secrets.simulatorSecret,
        secrets.llmKey,
        key,
        "process-test-secret", // AGENTLINE_SECRET_KEY (Processes.ts)
        "admin-password",
        ...hooks.map((h: { secret: string }) => h.secret)
      ]
      const exported = JSON.stringify(otlp.spans)
      for (const secret of given) {
        expect(secret.length).toBeGreaterThan(8)
        expect(output.includes(secret), `a secret in the logs: ${secret.slice(0, 6)}...`).toBe(false)
        expect(exported.includes(secret), `a secret in the traces: ${secret.slice(0, 6)}...`).toBe(false)
      }
      expect(good.count()).toBeGreaterThan(0)
      expect(bad.count()).toBeGreaterThan(0)
    }).pipe(Effect.scoped), 300_000)
})
