/**
 * Tools in a phone conversation, end to end on SQLite and PostgreSQL: a call placed through the whole
 * server and the fake Twilio to an agent whose node lists an organization's HTTP tools (a local API)
 * and an MCP tool (a local MCP server built with the official SDK). The fake LLM calls them; the agent
 * says what they returned; a failing tool and a slow one (its waiting sentence heard while it runs,
 * then its timeout) do not stop the call; every call is on the run's timeline, logs and usage.
 */
import { defaultPrices } from "@agentline/voice/session/Costs"
import { expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { scoped, startMcpServer, startToolApi } from "../../src/testing/ToolServers.js"
import { freshNumber } from "../contract/Contract.js"
import { call, dialects, seedOrganization } from "../Harness.js"
import { agentFinishedSpeaking, Fakes, placeTalkingCall, say, voiceLayer } from "./PhoneCallHarness.js"

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
  layer(voiceLayer(dialect, () => callerLines, defaultPrices, { webhooks: { allowPrivate: true } }), { timeout: "150 seconds", excludeTestServices: true })(
    `tools in a conversation [${dialect}]`,
    (it) => {
      it.effect("the agent calls an HTTP and an MCP tool and says what they returned; a failing and a slow tool (its waiting sentence heard) do not stop the call", () =>
        Effect.scoped(Effect.gen(function*() {
          const { carrier } = yield* Fakes
          const api = yield* scoped(startToolApi)
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
        })), 150_000)
    }
  )
}
