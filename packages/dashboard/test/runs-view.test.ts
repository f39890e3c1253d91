import { describe, expect, it } from "@effect/vitest"
import {
  clock,
  filterChoices,
  filterRuns,
  flatten,
  gatheredSections,
  inProgressRuns,
  noFilters,
  onThisOrigin,
  recordings,
  type RunLike,
  runDisposition,
  runOutcome,
  runVersion,
  timeline,
  transcriptLink,
  transcriptTurns,
  usageRows
} from "../src/pages/runs/runView.js"
import { formatTime } from "../src/components/format.js"
import { formatDate } from "../src/pages/agents/ui.js"

const run = (overrides: Partial<RunLike> = {}): RunLike => ({
  id: 1,
  name: "WR-1",
  created_at: "2026-03-02T10:00:00Z",
  is_completed: true,
  call_type: "outbound",
  logs: null,
  gathered_context: null,
  ...overrides
})

describe("transcript", () => {
  it("shows turns in time order with who spoke", () => {
    const turns = transcriptTurns(run({
      logs: {
        transcript: [
          { role: "user", text: "Hi", start_ms: 1500, end_ms: 2000 },
          { role: "assistant", text: "Hello!", start_ms: 200, end_ms: 1000, interrupted: true },
          { role: "assistant", text: "  ", start_ms: 3000, end_ms: 3100 },
          "junk"
        ]
      }
    }))
    expect(turns).toEqual([
      { speaker: "agent", text: "Hello!", startMs: 200, interrupted: true },
      { speaker: "caller", text: "Hi", startMs: 1500, interrupted: false }
    ])
    expect(transcriptTurns(run())).toEqual([])
    expect(clock(65_400)).toBe("1:05")
  })
})

describe("timeline", () => {
  it("merges status callbacks and node transitions by time", () => {
    const entries = timeline(run({
      logs: {
        telephony_status_callbacks: [
          { status: "ringing", timestamp: "2026-03-02T10:00:01Z" },
          { status: "completed", timestamp: "2026-03-02T10:00:09Z", duration: 8 },
          { status: "completed", timestamp: "2026-03-02T10:00:10Z", ignored: true }
        ],
        realtime_feedback_events: [
          { type: "rtf-node-transition", timestamp: "2026-03-02T10:00:02Z", payload: { node_id: "s", node_name: "Start", previous_node_name: null } },
          { type: "rtf-node-transition", timestamp: "2026-03-02T10:00:05Z", payload: { node_id: "e", node_name: "End", previous_node_name: "Start" } },
          { type: "rtf-pipeline-error", timestamp: "2026-03-02T10:00:06Z", payload: { error: "tts down", fatal: false } },
          { type: "rtf-unknown", timestamp: "2026-03-02T10:00:07Z", payload: {} }
        ]
      }
    }))
    expect(entries.map((e) => [e.kind, e.title, e.detail])).toEqual([
      ["status", "Call ringing", null],
      ["node", "Entered Start", null],
      ["node", "Entered End", "from Start"],
      ["error", "Error", "tts down"],
      ["status", "Call completed", "8 s"],
      ["status", "Call completed", "arrived after the call's end: recorded, not applied"]
    ])
  })
})

describe("timeline of tools and transfers", () => {
  it("shows each tool call with its outcome, the transfer's start and the provider's result", () => {
    const entries = timeline(run({
      logs: {
        realtime_feedback_events: [
          {
            type: "rtf-tool-call",
            timestamp: "2026-03-02T10:00:02Z",
            payload: { tool_name: "Order status", function_name: "order_status", status: "success", status_code: 200, latency_ms: 42, error: null }
          },
          {
            type: "rtf-tool-call",
            timestamp: "2026-03-02T10:00:03Z",
            payload: { tool_name: "Book", function_name: "book", status: "error", status_code: null, latency_ms: 5000, error: "timed out" }
          },
          {
            type: "rtf-transfer",
            timestamp: "2026-03-02T10:00:04Z",
            payload: { node_id: "sales", node_name: "Sales", transfer_id: "t1", target: "+14155550100", mode: "cold", status: "dialing" }
          }
        ],
        transfer: { transfer_id: "t1", status: "no_answer", cause: "DialCallStatus=no-answer", started_at: "2026-03-02T10:00:04Z", ended_at: "2026-03-02T10:00:30Z" }
      }
    }))
    expect(entries.map((e) => [e.kind, e.title, e.detail])).toEqual([
      ["tool", "Tool Order status", "answered; HTTP 200; 42 ms"],
      ["tool", "Tool Book", "failed; 5000 ms; timed out"],
      ["transfer", "Transfer to +14155550100", "cold, from Sales"],
      ["transfer", "Transfer no answer", "DialCallStatus=no-answer"]
    ])
  })

  it("a transfer still dialing has no result entry", () => {
    expect(timeline(run({ logs: { transfer: { status: "dialing", ended_at: null } } }))).toEqual([])
  })
})

describe("outcome, disposition and filters", () => {
  const runs = [
    run({ id: 1, created_at: "2026-03-01T12:00:00Z", gathered_context: { outcome: "completed", mapped_call_disposition: "interested" } }),
    run({ id: 2, created_at: "2026-03-02T12:00:00Z", gathered_context: { outcome: "busy", call_disposition: "busy" } }),
    run({ id: 3, created_at: "2026-03-03T12:00:00Z", is_completed: false }),
    run({ id: 4, created_at: "2026-03-03T13:00:00Z", logs: { telephony_status_callbacks: [{ status: "no_answer", timestamp: "x" }] } })
  ]

  it("reads the outcome and the disposition", () => {
    expect(runs.map(runOutcome)).toEqual(["completed", "busy", "in progress", "no_answer"])
    expect(runs.map(runDisposition)).toEqual(["interested", "busy", null, null])
  })

  it("filters by outcome, disposition and day", () => {
    const ids = (filters: Partial<typeof noFilters>) => filterRuns(runs, { ...noFilters, ...filters }).map((r) => r.id)
    expect(ids({})).toEqual([1, 2, 3, 4])
    expect(ids({ outcome: "busy" })).toEqual([2])
    expect(ids({ disposition: "interested" })).toEqual([1])
    // Days are the browser's; these runs are at midday UTC, the same day in every zone from UTC-11 to UTC+11.
    expect(ids({ from: "2026-03-02" })).toEqual([2, 3, 4])
    expect(ids({ to: "2026-03-02" })).toEqual([1, 2])
    expect(ids({ from: "2026-03-02", to: "2026-03-02" })).toEqual([2])
    expect(filterChoices(runs)).toEqual({ outcomes: ["busy", "completed", "in progress", "no_answer"], dispositions: ["busy", "interested"] })
  })
})

describe("artifacts and tables", () => {
  it("lists the recordings there are, preferring the signed public links", () => {
    const r = run({
      recording_public_url: "https://x/public/download/workflow/t/recording",
      recording_url: "https://x/other",
      user_recording_public_url: null,
      user_recording_url: null,
      bot_recording_public_url: "https://x/public/download/workflow/t/bot_recording",
      transcript_public_url: "https://x/public/download/workflow/t/transcript"
    })
    expect(recordings(r)).toEqual([
      { label: "Call recording", url: "https://x/public/download/workflow/t/recording" },
      { label: "Agent's side", url: "https://x/public/download/workflow/t/bot_recording" }
    ])
    expect(transcriptLink(r)).toBe("https://x/public/download/workflow/t/transcript")
    expect(recordings(run())).toEqual([])
  })

  it("plays and downloads the server's signed links from the page's own origin, whatever address they were signed with", () => {
    const r = run({
      recording_public_url: "http://localhost:8000/api/v1/public/download/workflow/42.99.mac/recording",
      user_recording_public_url: "https://calls.example.com/api/v1/public/download/workflow/42.99.mac/user_recording?x=1",
      bot_recording_public_url: "https://cdn.example.com/elsewhere/bot.wav",
      transcript_public_url: "http://localhost:8000/api/v1/public/download/workflow/42.99.mac/transcript"
    })
    expect(recordings(r).map((rec) => rec.url)).toEqual([
      "/api/v1/public/download/workflow/42.99.mac/recording",
      "/api/v1/public/download/workflow/42.99.mac/user_recording?x=1",
      "https://cdn.example.com/elsewhere/bot.wav"
    ])
    expect(transcriptLink(r)).toBe("/api/v1/public/download/workflow/42.99.mac/transcript")
    expect(onThisOrigin("/api/v1/public/download/workflow/t/recording")).toBe("/api/v1/public/download/workflow/t/recording")
  })

  it("flattens usage and cost into rows", () => {
    expect(flatten({ llm: { "gpt|||m": { total_tokens: 12 } }, tts: {}, tags: ["a", "b"], none: null, n: 1.5 })).toEqual([
      { key: "llm.gpt|||m.total_tokens", value: "12" },
      { key: "tags", value: "a, b" },
      { key: "none", value: "—" },
      { key: "n", value: "1.5" }
    ])
  })
})

describe("the run page's sections", () => {
  // What the dialer and the voice runtime write into a finished call's run.
  const finished = run({
    is_completed: true,
    gathered_context: {
      outcome: "completed",
      provider: "simulator",
      call_id: "sim-1",
      call_disposition: "interested",
      mapped_call_disposition: "interested",
      call_tags: ["answered"],
      end_reason: "end_node",
      city: "Paris",
      email: "ada@example.com"
    },
    usage_info: {
      call_duration_seconds: 12.345,
      conversation_duration_seconds: 11.5,
      llm: { "openai:gpt-4o-mini": { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280 } },
      tts: { local: 340 },
      stt: { local: 9.87 }
    },
    cost_info: { call_duration_seconds: 12, total_cost_usd: 0.0031, llm_cost_usd: 0.0031, stt_cost_usd: 0, tts_cost_usd: 0, unpriced: ["tts:local"] }
  })

  it("shows what the conversation gathered apart from the call's own data, without repeating the outcome or disposition", () => {
    const { call, gathered } = gatheredSections(finished)
    expect(gathered).toEqual({ city: "Paris", email: "ada@example.com" })
    expect(call).toEqual({ provider: "simulator", call_id: "sim-1", call_tags: ["answered"], end_reason: "end_node" })
    // A mapped disposition that differs is shown.
    expect(gatheredSections(run({ gathered_context: { call_disposition: "a", mapped_call_disposition: "b" } })).call).toEqual({ mapped_call_disposition: "b" })
  })

  it("lists usage and cost once each, with units", () => {
    const rows = usageRows(finished)
    expect(rows).toEqual([
      { label: "Call duration", value: "12.35 s" },
      { label: "Conversation", value: "11.5 s" },
      { label: "Language model openai:gpt-4o-mini", value: "prompt 1,200, completion 80, total 1,280 tokens" },
      { label: "Text to speech local", value: "340 characters" },
      { label: "Speech to text local", value: "9.87 s of audio" },
      { label: "Total cost", value: "$0.003100" },
      { label: "Language model cost", value: "$0.003100" },
      { label: "Speech to text cost", value: "$0.0000" },
      { label: "Text to speech cost", value: "$0.0000" },
      { label: "Without a price", value: "tts:local" }
    ])
    // The call's duration appears once although both objects carry it.
    expect(rows.filter((r) => r.label === "Call duration")).toHaveLength(1)
    // Unknown keys are not hidden.
    expect(usageRows(run({ usage_info: { minutes_billed: 2 }, cost_info: { carrier_usd: 0.5 } }))).toEqual([
      { label: "minutes_billed", value: "2" },
      { label: "carrier_usd", value: "0.5" }
    ])
    expect(usageRows(run())).toEqual([])
  })

  it("names the agent's version a run ran, not its definition's id", () => {
    const versions = [{ id: 6, version_number: 2 }, { id: 3, version_number: 1 }]
    expect(runVersion(6, versions)).toBe("version 2")
    expect(runVersion(9, versions)).toBeNull()
    expect(runVersion(null, versions)).toBeNull()
    expect(runVersion(6, undefined)).toBeNull()
  })

  it("lists as in progress exactly the runs the runs table shows in progress", () => {
    const runs = [
      run({ id: 1, is_completed: false }),
      run({ id: 2, is_completed: true, gathered_context: { outcome: "completed" } }),
      // Outcome written, completion not yet: the table shows the outcome, so it is not "in progress".
      run({ id: 3, is_completed: false, gathered_context: { outcome: "busy" } })
    ]
    expect(inProgressRuns(runs).map((r) => r.id)).toEqual([1])
    expect(inProgressRuns(runs).map(runOutcome)).toEqual(["in progress"])
    expect(runs.filter((r) => runOutcome(r) === "in progress")).toEqual(inProgressRuns(runs))
  })

  it("formats every date one way: the agents' pages' formatter is the settings' one", () => {
    expect(formatDate).toBe(formatTime)
    const iso = "2026-01-02T03:04:05Z"
    expect(formatTime(iso)).toBe(new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }))
    expect(formatTime(iso, { seconds: true })).toContain("05")
    expect(formatTime(null)).toBe("—")
  })
})
