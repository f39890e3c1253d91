/**
 * Tools in a phone conversation, end to end on SQLite and PostgreSQL: a call placed through the whole
 * server and the fake Twilio to an agent whose node lists an organization's HTTP tools (a local API)
 * and an MCP tool (a local MCP server built with the official SDK). The fake LLM calls them; the agent
 * says what they returned; a failing tool and a slow one (its waiting sentence heard while it runs,
 * then its timeout) do not stop the call; every call is on the run's timeline, logs and usage.
 *
 * The server exports its traces over OTLP to an in-process receiver (issue 25): the call is one trace,
 * from the dial to the run's save and its webhooks, with a span per caller turn (its latencies as
 * attributes) and per tool call under the call's media session.
 */
import { defaultPrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { scoped, startMcpServer, startToolApi } from "../../src/testing/ToolServers.js"
import { freshNumber } from "../contract/Contract.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { agentFinishedSpeaking, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"
import { attribute, type OtlpSpan } from "../OtlpReceiver.js"
import { startReceiver } from "../WebhookReceiver.js"
import { logLines } from "../contract/LiveServer.js"

let callerLines: ReadonlyArray<string> = []

interface ToolCallLog {
  readonly function_name: string
  readonly status: string
  readonly arguments: unknown
  readonly latency_ms: number
  readonly result_chars: number
  readonly error_kind: string | null
}
interface TranscriptEntry {
  readonly role: string
  readonly text: string
}

for (const dialect of dialects) {
  layer(voiceLayer(dialect, () => callerLines, defaultPrices, { webhooks: { allowPrivate: true, pollMillis: 100 } }, undefined, { traces: true }), { timeout: "150 seconds", excludeTestServices: true })(
    `tools in a conversation [${dialect}]`,
    (it) => {
      it.effect("the agent calls an HTTP and an MCP tool and says what they returned; a failing and a slow tool (its waiting sentence heard) do not stop the call", () =>
        Effect.scoped(Effect.gen(function*() {
          const { carrier, spans: exported } = yield* Fakes
          const api = yield* scoped(startToolApi)
          const hooks = yield* Effect.acquireRelease(Effect.promise(() => startReceiver()), (r) => Effect.promise(() => r.close()))
          const mcp = yield* scoped(() => startMcpServer())
          const org = yield* seedOrganization()
          const tool = (body: unknown) =>
            Effect.map(call("POST", "/api/v1/tools", { apiKey: org.apiKey, body }), (r) => {
              expect(r.status, JSON.stringify(r.body)).toBe(200)
              return r.body.tool_uuid as string
            })
          const orderStatus = yield* tool({
            name: "Order status",
            description: "Looks up an order",
            definition: {
              type: "http_api",
              config: { method: "GET", url: `${api.url}/orders/{{order_id}}`, parameters: [{ name: "order_id", type: "string", description: "The order's id" }], timeout_ms: 3000 }
            }
          })
          const shop = yield* tool({ name: "Shop", description: "The shop", definition: { type: "mcp", config: { url: mcp.url } } })
          const reserve = yield* tool({ name: "Reserve", description: "Reserves a slot", definition: { type: "http_api", config: { method: "POST", url: `${api.url}/fail` } } })
          const stock = yield* tool({
            name: "Check stock",
            description: "Checks the stock (slowly)",
            definition: { type: "http_api", config: { method: "GET", url: `${api.url}/slow`, timeout_ms: 3000, customMessage: "Please hold on while I check." } }
          })

          const carrierToken = String(carrier.config({ machineDetection: false }).auth_token)
          const callerId = freshNumber("+1415777")
          carrier.fake.own(callerId)
          const config = yield* call("POST", "/api/v1/organizations/telephony-configs", {
            apiKey: org.apiKey,
            body: { name: "twilio", config: { provider: "twilio", ...carrier.config({ machineDetection: false }) }, is_default_outbound: true }
          })
          yield* call("POST", `/api/v1/organizations/telephony-configs/${config.body.id}/phone-numbers`, {
            apiKey: org.apiKey,
            body: { address: callerId, is_default_caller_id: true }
          })
          const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
            apiKey: org.apiKey,
            body: {
              name: "Tool agent",
              workflow_definition: {
                nodes: [
                  {
                    id: "start",
                    type: "startCall",
                    position: { x: 0, y: 0 },
                    data: {
                      name: "Start",
                      prompt: "Tool agent: help with orders.",
                      greeting: "Hello, how can I help?",
                      tool_uuids: [orderStatus, shop, reserve, stock],
                      mcp_tool_filters: { [shop]: ["lookup_order"] }
                    }
                  },
                  { id: "bye", type: "endCall", position: { x: 0, y: 100 }, data: { name: "Bye", prompt: "Say goodbye." } }
                ],
                edges: [{ id: "e1", source: "start", target: "bye", data: { label: "done", condition: "Done" } }]
              },
              workflow_configurations: { smart_turn_stop_secs: 0.5 }
            }
          })
          expect(agent.status).toBe(200)

          const webhook = yield* call("POST", "/api/v1/organizations/webhooks", {
            apiKey: org.apiKey,
            body: { url: `${hooks.url}/hooks`, event_types: ["run.started", "run.ended"] }
          })
          expect(webhook.status).toBe(200)

          callerLines = ["Where is my order?", "Book it please."]
          const { leg, runId } = yield* placeTalkingCall(org.apiKey, agent.body.workflow_uuid)
          const greeted = yield* agentFinishedSpeaking(leg, 0, "the greeting")
          yield* say(leg, "Where is my order?")
          yield* agentFinishedSpeaking(leg, greeted, "the order's status")
          yield* say(leg, "Book it please.")
          // The agent ends the call itself (end_call) once it has said how the booking went.
          let run = (yield* call("GET", `/api/v1/workflow/${agent.body.id}/runs/${runId}`, { apiKey: org.apiKey })).body
          const deadline = Date.now() + 90_000
          while (run.logs?.transcript === undefined && Date.now() < deadline) {
            yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
            run = (yield* call("GET", `/api/v1/workflow/${agent.body.id}/runs/${runId}`, { apiKey: org.apiKey })).body
          }

          // The tools were called with the model's arguments.
          expect(api.received().map((r) => `${r.method} ${r.url}`)).toEqual(["GET /orders/A17", "POST /fail", "GET /slow"])
          // The agent said what they returned; the slow tool's waiting sentence was heard; the call went on to its end.
          const agentSaid = (run.logs.transcript as ReadonlyArray<TranscriptEntry>).filter((t) => t.role === "assistant").map((t) => t.text)
          expect(agentSaid).toEqual([
            "Hello, how can I help?",
            "Order A17 is shipped. Order Z9 shipped on Monday.",
            "Please hold on while I check. That did not work. That did not work. Goodbye."
          ])
          expect(run.gathered_context).toMatchObject({ end_reason: "end_call_tool" })
          // Every call on the run's logs and timeline, and in its usage.
          const calls = run.logs.tool_calls as ReadonlyArray<ToolCallLog>
          expect(calls.map((c) => [c.function_name, c.status, c.error_kind])).toEqual([
            ["order_status", "success", null],
            ["lookup_order", "success", null],
            ["reserve", "error", "http_status"],
            ["check_stock", "error", "timeout"]
          ])
          expect(calls[0]).toMatchObject({ arguments: { order_id: "A17" } })
          expect(calls[0]!.result_chars).toBeGreaterThan(0)
          expect(calls[3]!.latency_ms).toBeGreaterThanOrEqual(3000)
          expect(run.logs.realtime_feedback_events.filter((e: { type: string }) => e.type === "rtf-tool-call")).toHaveLength(4)
          expect(run.usage_info.tool_calls).toMatchObject({
            order_status: { calls: 1, errors: 0 },
            lookup_order: { calls: 1, errors: 0 },
            reserve: { calls: 1, errors: 1 },
            check_stock: { calls: 1, errors: 1 }
          })

          // ------------------------------------------------------------------- the call's trace
          yield* Effect.promise(async () => {
            const deadline = Date.now() + 30_000
            const done = () =>
              exported.filter((s) => s.name === "agentline.webhook.deliver" && Number(attribute(s, "agentline.run_id")) === runId).length >= 2 &&
              exported.some((s) => s.name === "agentline.call" && Number(attribute(s, "agentline.run_id")) === runId)
            while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
          })
          const root = exported.find((s) => s.name === "agentline.call" && Number(attribute(s, "agentline.run_id")) === runId)
          expect(root, "the call's span").toBeDefined()
          const trace = exported.filter((s) => s.traceId === root!.traceId)
          expect(root!.parentSpanId ?? "").toBe("")
          expect(attribute(root!, "agentline.outcome")).toBe("completed")
          const byId = new Map(trace.map((s) => [s.spanId, s]))
          // Every span of the trace has its parent in it.
          expect(trace.filter((s) => s !== root && !byId.has(s.parentSpanId ?? "")).map((s) => s.name)).toEqual([])
          const childrenOf = (parent: OtlpSpan, name: string) => trace.filter((s) => s.parentSpanId === parent.spanId && s.name === name)
          expect(childrenOf(root!, "agentline.call.dial")).toHaveLength(1)
          expect(childrenOf(root!, "agentline.call.save")).toHaveLength(1)
          // The carrier's callbacks, each linked to the HTTP request that brought it.
          const events = childrenOf(root!, "agentline.call.event")
          expect(events.map((e) => attribute(e, "agentline.event"))).toEqual(expect.arrayContaining(["answered", "ended"]))
          const overHttp = events.filter((e) => attribute(e, "agentline.durable") === true)
          expect(overHttp.length).toBeGreaterThan(0)
          for (const event of overHttp) {
            const handler = exported.find((s) => s.spanId === event.links?.[0]?.spanId)
            const request = exported.find((s) => s.spanId === handler?.parentSpanId)
            expect(request?.name).toBe("http.server POST")
            expect(String(attribute(request!, "http.route"))).toMatch(/^\/api\/v1\/telephony\//)
          }
          // Both webhooks (run.started, run.ended) delivered in the call's trace.
          // No credential of the call (the carrier's token, the API key, the webhook's signing secret) in
          // what was exported or logged.
          for (const secret of [carrierToken, org.apiKey, webhook.body.secret as string]) {
            expect(secret.length).toBeGreaterThan(8)
            expect(JSON.stringify(exported).includes(secret), `a secret in the traces: ${secret.slice(0, 4)}...`).toBe(false)
            expect(logLines.some((l) => l.includes(secret)), `a secret in the logs: ${secret.slice(0, 4)}...`).toBe(false)
          }
          expect(childrenOf(root!, "agentline.webhook.deliver").map((s) => attribute(s, "agentline.event_type")).sort()).toEqual(["run.ended", "run.started"])
          // The media session (the conversation, `VoiceAgent.converse`) holds a span per caller turn, with
          // the node and each stage's latency.
          const [media] = childrenOf(root!, "agentline.call.media")
          expect(media, "the media session's span").toBeDefined()
          const [conversation] = childrenOf(media!, "VoiceAgent.converse")
          expect(conversation, "the conversation's span").toBeDefined()
          const turns = childrenOf(conversation!, "agentline.voice.turn").sort((a, b) => Number(BigInt(a.startTimeUnixNano ?? 0) - BigInt(b.startTimeUnixNano ?? 0)))
          expect(turns).toHaveLength(2)
          for (const turn of turns) {
            expect(attribute(turn, "agentline.turn.node")).toBe("start")
            for (const stage of ["end_of_speech", "recognition", "first_token", "first_audio"]) {
              const millis = Number(attribute(turn, `agentline.turn.${stage}_ms`))
              expect(Number.isFinite(millis) && millis >= 0 && millis < 30_000, `${stage}: ${millis}`).toBe(true)
            }
          }
          // The first audio of a reply comes after its first token, which comes after the words were recognized.
          for (const turn of turns) {
            expect(Number(attribute(turn, "agentline.turn.first_audio_ms"))).toBeGreaterThanOrEqual(Number(attribute(turn, "agentline.turn.first_token_ms")))
            expect(Number(attribute(turn, "agentline.turn.first_token_ms"))).toBeGreaterThanOrEqual(Number(attribute(turn, "agentline.turn.recognition_ms")))
          }
          // Each tool call is a span of the turn that made it, with its name and outcome.
          const toolsOf = (turn: OtlpSpan) =>
            childrenOf(turn, "agentline.voice.tool_call").map((t) => [attribute(t, "agentline.tool.name"), attribute(t, "agentline.tool.outcome")]).sort()
          expect(toolsOf(turns[0]!)).toEqual([["lookup_order", "success"], ["order_status", "success"]])
          expect(toolsOf(turns[1]!)).toEqual([["check_stock", "error"], ["reserve", "error"]])
          expect(trace.filter((s) => s.name === "agentline.voice.tool_call")).toHaveLength(4)
        })), 150_000)
    }
  )
}
