/**
 * Campaigns and runs in the real dashboard (browser tests on the real server, SQLite and PostgreSQL):
 * a refused contacts file's rows listed, a CSV dropped on the page and uploaded with a progress bar
 * (the upload throttled so the bar has something to show), a campaign of three simulated calls
 * started and watched until it completes live, then one of its runs opened: the conversation, the
 * timeline and the recording, which plays.
 */
import type { Page } from "playwright-core"
import { expect, it } from "vitest"
import { startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import { Effect, Exit, Scope } from "effect"
import { afterAll, beforeAll } from "vitest"
import { scriptedReplies } from "../../../http/src/DemoConversations.js"
import * as NodeFs from "node:fs"
import { formatMinutes, formatUsd } from "../../src/pages/home/overview.js"
import { dashboardSuite, dialects, LAPTOP, PHONE } from "./Harness.js"

// The agent talks with the FAKE OpenAI-compatible model: without a language model a call that the
// callee answers ends `failed` (the agent cannot talk), and the campaign would reach nobody.
let fakeUrl: string | undefined
const scope = Effect.runSync(Scope.make())
beforeAll(async () => {
  fakeUrl = (await Effect.runPromise(Scope.extend(startFakeOpenAi([], scriptedReplies), scope))).url
})
afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
const modelEnv = () => {
  if (fakeUrl === undefined) throw new Error("the fake language model has not started")
  return { AGENTLINE_LLM: "openai:gpt-4.1-mini", OPENAI_BASE_URL: fakeUrl, OPENAI_API_KEY: "sk-fake" }
}

/** Clicks what starts a download; resolves with the downloaded file's name and text. */
const downloaded = async (page: Page, click: () => Promise<void>) => {
  const [download] = await Promise.all([page.waitForEvent("download"), click()])
  return { name: download.suggestedFilename(), text: NodeFs.readFileSync(await download.path(), "utf8") }
}

/** Drops `text` as a file named `name` on the page's drop zone, as a person dragging it from their desktop would. */
const dropCsv = async (page: Page, name: string, text: string) => {
  const dataTransfer = await page.evaluateHandle(({ name, text }) => {
    const transfer = new DataTransfer()
    transfer.items.add(new File([text], name, { type: "text/csv" }))
    return transfer
  }, { name, text })
  await page.getByTestId("csv-dropzone").dispatchEvent("dragover", { dataTransfer })
  await page.getByTestId("csv-dropzone").dispatchEvent("drop", { dataTransfer })
  await page.getByText(`Chosen: ${name}`).waitFor()
}

// Each contact carries a long note, so the file is big enough for a throttled upload to show progress.
const note = "n".repeat(12_000)
const contacts = ["Ada", "Grace", "Alan"].map((name, i) => `+1415555020${i + 1},${name},${note}`)

dashboardSuite("Campaigns and runs", (dashboard) => {
  it("lists a refused file's rows, uploads a dropped CSV with progress, runs a campaign live to completion, and plays a run's recording", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    await dashboard.api("POST", "/api/v1/organizations/telephony-configs", {
      name: `Campaign sim ${Date.now()}`,
      is_default_outbound: true,
      config: { provider: "simulator", ring_seconds: 0.2, callee_lines: ["Hello?"] }
    })
    await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Campaign agent",
      workflow_definition: {
        nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Ask about the order.", greeting: "Hello {{first_name}}, about your order." } }],
        edges: []
      }
    })
    const page = await dashboard.loggedIn(user)
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Campaigns" }).click()
    await page.getByRole("link", { name: "New campaign" }).click()
    await page.getByLabel("Name", { exact: true }).fill("Order follow-up")
    await page.getByLabel("Agent", { exact: true }).selectOption({ label: "Campaign agent" })
    await page.getByLabel("Calls at once").fill("3")
    await page.getByLabel("Retry unreached contacts").uncheck()

    // A file with a bad number: the server's row problems are listed, one per item.
    await dropCsv(page, "bad.csv", "phone_number,first_name\n+14155550201,Ada\ncall me maybe,Grace\n")
    await page.getByRole("button", { name: "Upload and create campaign" }).click()
    const refused = page.getByRole("alert").filter({ hasText: "The contacts file was refused" })
    await refused.waitFor()
    expect(await refused.getByRole("listitem").allTextContents()).toEqual([expect.stringMatching(/^Invalid phone numbers in rows: 3\./)])

    // The good file, uploaded slowly enough to watch the progress bar move.
    await dropCsv(page, "contacts.csv", ["phone_number,first_name,note", ...contacts].join("\n") + "\n")
    const cdp = await page.context().newCDPSession(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 12_000 })
    await page.evaluate(() => {
      const seen: Array<[number, number]> = []
      ;(window as any).__progress = seen
      new MutationObserver(() => {
        const bar = document.querySelector("progress")
        if (bar !== null) seen.push([Number(bar.value), Number(bar.max)])
      }).observe(document.body, { subtree: true, childList: true, attributes: true })
    })
    await page.getByRole("button", { name: "Upload and create campaign" }).click()
    await page.getByRole("heading", { name: "Order follow-up", level: 1 }).waitFor({ timeout: 60_000 })
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 })
    const progress: Array<[number, number]> = await page.evaluate(() => (window as any).__progress)
    expect(progress.some(([value, max]) => value > 0 && value < max), `progress seen: ${JSON.stringify(progress.slice(0, 20))}`).toBe(true)

    // Draft: three contacts imported; start it and watch it complete.
    const counter = (name: string) => page.locator(`[data-counter="${name}"]`)
    await counter("total").filter({ hasText: /^3$/ }).waitFor()
    await page.getByRole("button", { name: "Start", exact: true }).click()
    // The live view follows the campaign by itself (no reload): the counters reach 3.
    await counter("processed").filter({ hasText: /^3$/ }).waitFor({ timeout: 90_000 })
    await page.getByTestId("campaign-state").filter({ hasText: /^completed$/ }).waitFor()
    expect(await counter("reached").textContent()).toBe("3")
    expect(await counter("placed").textContent()).toBe("3")
    // The runs' own end is written with the call's; the view keeps polling until none is in progress.
    await counter("in-progress").filter({ hasText: /^0$/ }).waitFor()
    expect(await page.getByRole("heading", { name: "Log" }).locator("xpath=..").textContent()).toContain("campaign_completed")
    expect(await page.getByTestId("calling-window").textContent()).toContain("No schedule")
    expect(await page.getByTestId("breaker-state").textContent()).toContain("closed")
    // Completed: redial is offered, the other actions are not.
    await page.getByRole("button", { name: "Redial…" }).waitFor()
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0)
    // The server's progress figures, the report of every contact and the contacts file, downloaded from the page.
    const campaignId = Number(new URL(page.url()).pathname.split("/").at(-1))
    const serverProgress = await dashboard.api("GET", `/api/v1/campaign/${campaignId}/progress`)
    expect(serverProgress).toMatchObject({ progress_percentage: 100, failed_calls: 0, processed_rows: 3 })
    await counter("percent").filter({ hasText: /^100%$/ }).waitFor()
    expect(await counter("failed-calls").textContent()).toBe("0")
    const report = await downloaded(page, () => page.getByRole("link", { name: "Download report (CSV)" }).click())
    expect(report.name).toBe(`campaign-${campaignId}-report.csv`)
    expect(report.text.trimEnd().split("\r\n").map((line) => line.split(",").slice(1, 5))).toEqual([
      ["phone_number", "state", "outcome", "attempts"],
      ["+14155550201", "done", "completed", "1"],
      ["+14155550202", "done", "completed", "1"],
      ["+14155550203", "done", "completed", "1"]
    ])
    const source = await downloaded(page, () => page.getByRole("button", { name: "Download contacts file" }).click())
    expect(source).toEqual({ name: "contacts.csv", text: ["phone_number,first_name,note", ...contacts].join("\n") + "\n" })
    await dashboard.screenshot(page, "campaign-live")
    await page.setViewportSize(PHONE)
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "no sideways scrolling at 375 px").toBeLessThanOrEqual(PHONE.width)
    await page.setViewportSize(LAPTOP)

    // The campaign's runs, filtered by outcome, and one run's page.
    const runs = page.getByRole("region", { name: /^Runs/ }).or(page.locator("section.runs"))
    await runs.getByText("3 runs on this page").waitFor()
    await runs.getByLabel("Outcome").selectOption("completed")
    await runs.getByText("3 runs on this page").waitFor()
    const adaRun = runs.getByRole("row").filter({ hasText: "+14155550201" }).getByRole("link")
    await adaRun.click()
    await page.getByRole("heading", { name: /^Run / }).waitFor()
    await page.getByText("Hello Ada, about your order.").waitFor()
    const played = await page.evaluate(async () => {
      const audio = document.querySelector("audio")
      if (audio === null) throw new Error("no audio element")
      if (audio.readyState < 1) {
        await new Promise<void>((resolve, reject) => {
          audio.addEventListener("loadedmetadata", () => resolve(), { once: true })
          audio.addEventListener("error", () => reject(new Error(`audio error ${audio.error?.code}`)), { once: true })
          audio.load()
        })
      }
      audio.muted = true
      await audio.play()
      return { readyState: audio.readyState, duration: audio.duration }
    })
    expect(played.readyState).toBeGreaterThanOrEqual(1)
    expect(played.duration).toBeGreaterThan(0)
    expect(await page.locator(".timeline li").filter({ hasText: "Call ended" }).count()).toBeGreaterThan(0)
    await dashboard.screenshot(page, "run")
    await page.setViewportSize(PHONE)
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "no sideways scrolling at 375 px").toBeLessThanOrEqual(PHONE.width)
    await page.setViewportSize(LAPTOP)

    // The same runs by agent (the agent's Runs tab) and from the Runs section by campaign.
    await page.getByRole("link", { name: "All runs of the agent" }).click()
    await page.getByText("3 runs on this page").waitFor()
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click()
    await page.getByRole("region", { name: "By campaign" }).or(page.locator("section", { has: page.getByRole("heading", { name: "By campaign" }) }))
      .getByRole("link", { name: "Order follow-up" }).click()
    await page.getByText("3 runs on this page").waitFor()

    // All runs, searched on the server by a word of one conversation ("Hello Ada, about your order."), and exported.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click()
    const search = page.getByRole("search", { name: "Search runs" })
    await search.getByLabel("Search", { exact: true }).fill("ada")
    await search.getByRole("button", { name: "Search", exact: true }).click()
    await page.getByRole("status").filter({ hasText: /^1 run$/ }).waitFor()
    const found = page.getByTestId("all-runs").getByRole("row")
    expect(await found.count()).toBe(2)
    expect(await found.nth(1).textContent()).toContain("+14155550201")
    const exported = await downloaded(page, () => search.getByRole("link", { name: "Export CSV" }).click())
    expect(exported.name).toBe("runs.csv")
    const exportedLines = exported.text.trimEnd().split("\r\n")
    expect(exportedLines).toHaveLength(2)
    expect(exportedLines[1]).toContain("+14155550201")

    // Sorted at once by the list's own control, in the API's order (the export follows it).
    await search.getByRole("button", { name: "Clear" }).click()
    await page.getByLabel("Sort").selectOption({ label: "Longest first" })
    const longest = await dashboard.api("GET", "/api/v1/runs?sort_by=duration&sort_order=desc&limit=50")
    const names = longest.runs.map((r: { name: string }) => r.name)
    await page.waitForFunction(
      (expected) => [...document.querySelectorAll("[data-testid=all-runs] tbody tr td:first-child")].map((td) => td.textContent).join("|") === expected,
      names.join("|")
    )
    expect(await search.getByRole("link", { name: "Export CSV" }).getAttribute("href")).toBe("/api/v1/runs/export?sort_by=duration&sort_order=desc")

    // The overview's figures are the API's: per day (UTC) by outcome, minutes and cost over the last 7 days.
    const usage = await dashboard.api("GET", "/api/v1/organizations/usage/daily-breakdown?days=7")
    const days: Array<any> = await Promise.all(usage.breakdown.map((d: any) =>
      dashboard.api("GET", `/api/v1/organizations/reports/daily?date=${d.date}&timezone=UTC`)
    ))
    const sum = (key: string) => days.reduce((n, d) => n + d.metrics[key], 0)
    expect(sum("reached_runs")).toBeGreaterThanOrEqual(3)
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click()
    const figure = (name: string) => page.getByTestId("overview-totals").locator(`[data-figure="${name}"]`)
    await figure("calls").filter({ hasText: new RegExp(`^${sum("total_runs")}$`) }).waitFor()
    const ended = sum("completed_runs")
    expect(await figure("reach-rate").textContent()).toBe(`${Math.round((sum("reached_runs") / ended) * 1000) / 10}%`)
    expect(await figure("minutes").textContent()).toBe(formatMinutes(usage.total_minutes))
    expect(await figure("cost").textContent()).toBe(formatUsd(usage.total_cost_usd))
    const today = days.at(-1)
    const row = page.getByTestId("overview-days").locator(`tr[data-day="${today.date}"]`)
    expect(await row.locator('[data-figure="calls"]').textContent()).toBe(String(today.metrics.total_runs))
    expect(await row.locator('[data-figure="reached"]').textContent()).toBe(String(today.metrics.reached_runs))
    expect(await page.getByRole("img", { name: "Calls per day by outcome" }).locator("rect").count()).toBeGreaterThan(0)
    await dashboard.screenshot(page, "overview")
  }, 180_000)

  it("pauses, resumes and cancels a running campaign from its page, and changes its settings while paused", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    // Calls that stay up (no callee lines, a long talk), one at a time: the campaign is still running when acted on.
    const config = await dashboard.api("POST", "/api/v1/organizations/telephony-configs", {
      name: `Slow sim ${Date.now()}`,
      config: { provider: "simulator", ring_seconds: 0.2, talk_seconds: 120 }
    })
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: `Slow agent ${Date.now()}`,
      workflow_definition: { nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Talk." } }], edges: [] }
    })
    const csv = "phone_number\n+14155550301\n+14155550302\n"
    const presigned = await dashboard.api("POST", "/api/v1/storage/presigned-upload-url", { file_name: "slow.csv", file_size: csv.length })
    const put = await fetch(presigned.upload_url, { method: "PUT", headers: { "content-type": "text/csv" }, body: csv })
    expect(put.ok).toBe(true)
    const campaign = await dashboard.api("POST", "/api/v1/campaign/create", {
      name: "Slow campaign",
      workflow_id: agent.id,
      source_type: "csv",
      source_id: presigned.file_key,
      telephony_configuration_id: config.id,
      max_concurrency: 1
    })

    const page = await dashboard.loggedIn(user)
    await page.goto(`/campaigns/${campaign.id}`)
    await page.getByRole("heading", { name: "Slow campaign", level: 1 }).waitFor()
    const badge = (state: string) => page.getByTestId("campaign-state").filter({ hasText: new RegExp(`^${state}$`) })
    await page.getByRole("button", { name: "Start", exact: true }).click()
    await badge("running").waitFor()
    await page.locator('[data-counter="in-progress"]').filter({ hasText: /^1$/ }).waitFor()

    await page.getByRole("button", { name: "Pause" }).click()
    await badge("paused").waitFor()
    // Paused: the settings form is open; a value out of bounds is refused on its field.
    await page.getByLabel("Calls at once").fill("500")
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByText("max_concurrency must be an integer between 1 and 100").first().waitFor()
    await page.getByLabel("Calls at once").fill("2")
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByText("Settings saved.").waitFor()
    expect((await dashboard.api("GET", `/api/v1/campaign/${campaign.id}`)).max_concurrency).toBe(2)

    await page.getByRole("button", { name: "Resume" }).click()
    await badge("running").waitFor()
    await page.getByRole("button", { name: "Cancel campaign" }).click()
    await badge("canceled").waitFor()
    expect(await page.getByRole("button", { name: /^(Start|Pause|Resume|Cancel campaign)$/ }).count()).toBe(0)
    const log = await page.getByRole("heading", { name: "Log" }).locator("xpath=..").textContent()
    for (const event of ["campaign_started", "campaign_paused", "campaign_resumed", "campaign_canceled"]) expect(log).toContain(event)
  }, 120_000)
}, { serverEnv: modelEnv, dialects })
