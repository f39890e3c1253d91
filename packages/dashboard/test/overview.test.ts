/** The home page's figures and the global runs page's parameters (pure modules). */
import { RunListParams } from "@agentline/api/runs/RunSearch"
import { Effect, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { axisMax, formatUsd, overview } from "../src/pages/home/overview.js"
import { emptySearch, exportHref, listParams, localDayBound, searchParams, SORTS } from "../src/pages/runs/runSearch.js"

const metrics = (total: number, completed: number, reached: number) => ({
  total_runs: total,
  completed_runs: completed,
  in_progress_runs: total - completed,
  reached_runs: reached,
  total_duration_seconds: 0,
  average_duration_seconds: 0
})

describe("overview", () => {
  it("per day by outcome from the daily reports, minutes and cost from the breakdown, the reach rate over ended calls", () => {
    const usage = {
      breakdown: [
        { date: "2026-11-19", call_count: 0, minutes: 0, cost_usd: 0, dograh_tokens: 0 },
        { date: "2026-11-20", call_count: 4, minutes: 2.5, cost_usd: 0.03, dograh_tokens: 3 },
        { date: "2026-11-21", call_count: 3, minutes: 1, cost_usd: null, dograh_tokens: 0 }
      ]
    }
    const o = overview(usage, [
      { date: "2026-11-20", metrics: metrics(4, 4, 1) },
      { date: "2026-11-21", metrics: metrics(3, 2, 2) }
    ])
    expect(o.days.map((d) => [d.date, d.calls, d.reached, d.notReached, d.inProgress, d.minutes, d.cost])).toEqual([
      ["2026-11-19", 0, 0, 0, 0, 0, 0],
      ["2026-11-20", 4, 1, 3, 0, 2.5, 0.03],
      ["2026-11-21", 3, 2, 0, 1, 1, 0]
    ])
    expect(o).toMatchObject({ calls: 7, reached: 3, ended: 6, reachRate: 50, minutes: 3.5, cost: 0.03 })
    expect(overview({ breakdown: [] }, []).reachRate).toBeNull()
  })

  it("axis bounds are round and never below the data", () => {
    for (const [max, bound] of [[0, 1], [0.03, 0.05], [1, 1], [3, 5], [7, 10], [12, 20], [250, 500]] as const) {
      expect(axisMax(max), String(max)).toBeCloseTo(bound, 10)
    }
    for (let max = 0.001; max < 1e6; max *= 1.37) expect(axisMax(max)).toBeGreaterThanOrEqual(max)
    expect(formatUsd(0.0123)).toBe("$0.0123")
    expect(formatUsd(12)).toBe("$12.00")
  })
})

describe("runs search", () => {
  it("leaves empty fields out, makes local days instants, and the API's schema accepts what it sends", async () => {
    expect(searchParams(emptySearch)).toEqual({})
    expect(exportHref(emptySearch)).toBe("/api/v1/runs/export")
    const form = { ...emptySearch, q: " friday dentist ", outcome: "busy", workflow_id: "4", from: "2026-11-19", to: "2026-11-20" }
    const params = searchParams(form)
    expect(params).toMatchObject({ q: "friday dentist", outcome: "busy", workflow_id: "4" })
    expect(new Date(params["start_date"]!).getTime()).toBe(new Date("2026-11-19T00:00:00").getTime())
    expect(new Date(params["end_date"]!).getTime()).toBe(new Date("2026-11-20T23:59:59.999").getTime())
    expect(exportHref(form)).toBe(`/api/v1/runs/export?${new URLSearchParams(params)}`)
    expect(localDayBound("not a day", false)).toBeUndefined()
    const decoded = await Effect.runPromise(listParams(form, "abc"))
    expect(decoded).toMatchObject({ q: "friday dentist", outcome: ["busy"], workflow_id: 4, limit: 50, cursor: "abc", sort_by: "created_at" })
    expect(Schema.is(RunListParams)(decoded)).toBe(true)
    const refused = await Effect.runPromise(Effect.either(listParams({ ...emptySearch, workflow_id: "x" })))
    expect(refused._tag).toBe("Left")
  })

  it("sends each order the page offers as sort_by and sort_order, which the API's schema accepts; the default sends none", async () => {
    for (const [sort] of SORTS) {
      const params = searchParams({ ...emptySearch, sort })
      if (sort === "") {
        expect(params).toEqual({})
        continue
      }
      const [by, order] = sort.split(":")
      expect(params).toEqual({ sort_by: by, sort_order: order })
      expect(exportHref({ ...emptySearch, sort })).toBe(`/api/v1/runs/export?sort_by=${by}&sort_order=${order}`)
      expect(await Effect.runPromise(listParams({ ...emptySearch, sort }))).toMatchObject({ sort_by: by, sort_order: order })
    }
    expect(new Set(SORTS.map(([sort]) => sort)).size).toBe(6)
  })
})
