import { describe, expect, it } from "@effect/vitest"
import {
  clock,
  filterChoices,
  filterRuns,
  flatten,
  noFilters,
  onThisOrigin,
  recordings,
  type RunLike,
  runDisposition,
  runOutcome,
  timeline,
  transcriptLink,
  transcriptTurns
} from "../src/pages/runs/runView.js"

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
