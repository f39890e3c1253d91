/**
 * Agents and telephony in the real dashboard (browser tests on the real server, SQLite and PostgreSQL):
 * a simulator configuration and a phone number added through the generated forms; a two-node agent
 * built in the graph editor, the server's 422 shown on the edge at fault, a second version saved; a
 * test call from the agent page whose run page plays the call's recording.
 */
import type { Page } from "playwright-core"
import { expect, it } from "vitest"
import { dashboardSuite, LAPTOP, logIn, PHONE } from "./Harness.js"

const nav = (page: Page, section: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: section }).click()

/** Creates an agent through the new-agent form; resolves on its editor. */
const createAgent = async (page: Page, name: string) => {
  await nav(page, "Agents")
  await page.getByRole("link", { name: "New agent" }).click()
  await page.getByLabel("Name", { exact: true }).fill(name)
  await page.getByLabel("Greeting").fill("Hello {{first_name}}, this is the test agent.")
  await page.getByLabel("Prompt of the first step").fill("Ask how the caller is doing.")
  await page.getByRole("button", { name: "Create agent" }).click()
  await page.getByRole("heading", { name, level: 1 }).waitFor()
  await page.getByRole("button", { name: "Save draft" }).waitFor()
}

/** The agent page's publishing panel. */
const publishing = (page: Page) => page.getByRole("group", { name: "Publishing" })

/** Whether the run page's first audio element can play: metadata loaded, a positive duration, and it plays. */
const playFirstRecording = (page: Page) =>
  page.evaluate(async () => {
    const audio = document.querySelector("audio")
    if (audio === null) throw new Error("no audio element")
    if (audio.readyState < 1) {
      await new Promise<void>((resolve, reject) => {
        audio.addEventListener("loadedmetadata", () => resolve(), { once: true })
        audio.addEventListener("error", () => reject(new Error(`audio error ${audio.error?.code} for ${audio.currentSrc}`)), { once: true })
        audio.load()
      })
    }
    audio.muted = true
    await audio.play()
    // Seeking needs byte ranges: without them the browser can only play from the start.
    const seekable = audio.seekable.length > 0 ? audio.seekable.end(0) : 0
    await new Promise<void>((resolve, reject) => {
      audio.addEventListener("seeked", () => resolve(), { once: true })
      audio.addEventListener("error", () => reject(new Error(`audio error ${audio.error?.code} while seeking`)), { once: true })
      audio.currentTime = audio.duration / 2
    })
    return { readyState: audio.readyState, duration: audio.duration, src: audio.currentSrc, seekable, at: audio.currentTime }
  })

dashboardSuite("Agents and telephony", (dashboard) => {
  it("adds a simulator configuration from the provider metadata, keeps its masked secret, and adds a number bound to an agent", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Inbound desk",
      workflow_definition: { nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Help the caller." } }], edges: [] }
    })
    const page = await dashboard.loggedIn(user)
    await nav(page, "Telephony")
    await page.getByRole("link", { name: "Add configuration" }).click()
    await page.getByLabel("Provider").selectOption({ label: "Simulator (no real calls)" })
    // The form is the provider's metadata: its fields with their labels and descriptions.
    await page.getByLabel("Ring seconds").fill("0.2")
    await page.getByLabel("Name", { exact: true }).fill("Lab simulator")
    await page.getByLabel("Webhook secret").fill("lab-secret-value")
    await page.getByLabel("Callee lines").fill("Hello?")
    // A value the server refuses comes back on its field.
    await page.getByLabel("Failure rate").fill("3")
    await page.getByRole("button", { name: "Add configuration" }).click()
    await page.getByText("failure_rate must be a number from 0 to 1").first().waitFor()
    expect(await page.getByLabel("Failure rate").getAttribute("aria-invalid")).toBe("true")
    await page.getByLabel("Failure rate").fill("0")
    await page.getByRole("button", { name: "Add configuration" }).click()
    await page.getByRole("heading", { name: "Lab simulator", level: 1 }).waitFor()

    // The secret is shown masked; saving the form unchanged keeps it (the API shows the same mask).
    const before = await dashboard.api("GET", "/api/v1/organizations/telephony-configs")
    const config = before.configurations.find((c: { name: string }) => c.name === "Lab simulator")
    const stored = await dashboard.api("GET", `/api/v1/organizations/telephony-configs/${config.id}`)
    const masked = await page.getByLabel("Webhook secret").inputValue()
    expect(masked).not.toBe("lab-secret-value")
    expect(masked).toBe(stored.credentials.webhook_secret)
    await page.getByLabel("Ring seconds").fill("0.3")
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByText("Saved.").waitFor()
    const after = await dashboard.api("GET", `/api/v1/organizations/telephony-configs/${config.id}`)
    expect(after.credentials).toMatchObject({ ring_seconds: 0.3, webhook_secret: stored.credentials.webhook_secret })

    await page.getByRole("button", { name: "Make default for outbound calls" }).click()
    await page.getByRole("button", { name: "Make default for outbound calls" }).waitFor({ state: "detached" })
    expect((await dashboard.api("GET", `/api/v1/organizations/telephony-configs/${config.id}`)).is_default_outbound).toBe(true)

    // A number bound to the agent for incoming calls.
    await page.getByLabel("Number or address").fill("+14155550142")
    await page.getByLabel("Label", { exact: true }).fill("Front desk")
    await page.getByLabel("Agent for incoming calls", { exact: true }).selectOption({ label: "Inbound desk" })
    await page.getByRole("button", { name: "Add number" }).click()
    await page.getByText("+14155550142 added.").waitFor()
    await page.getByRole("link", { name: "Inbound desk" }).waitFor()
    const numbers = await dashboard.api("GET", `/api/v1/organizations/telephony-configs/${config.id}/phone-numbers`)
    expect(numbers.phone_numbers).toMatchObject([{ address: "+14155550142", label: "Front desk", inbound_workflow_id: agent.id }])
    await dashboard.screenshot(page, "telephony")

    // Readable on a phone: the same page at 375 px has no horizontal scroll.
    await page.setViewportSize(PHONE)
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width)

    // Another configuration, deleted from its page after a confirmation step (at phone width).
    const spare = await dashboard.api("POST", "/api/v1/organizations/telephony-configs", { name: "Spare simulator", config: { provider: "simulator" } })
    await page.goto(`/telephony/${spare.id}`)
    await page.getByRole("button", { name: "Delete configuration" }).click()
    await page.getByRole("group", { name: "Confirm deletion" }).getByRole("button", { name: "Yes, delete" }).click()
    await page.getByRole("heading", { name: "Telephony", level: 1 }).waitFor()
    await page.getByRole("link", { name: "Lab simulator" }).waitFor()
    expect(await page.getByRole("link", { name: "Spare simulator" }).count()).toBe(0)
  }, 120_000)

  it("builds a two-node agent in the editor, shows the server's 422 on the edge, saves a second version, and places a test call whose recording plays", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    await dashboard.api("POST", "/api/v1/organizations/telephony-configs", {
      name: `Editor sim ${Date.now()}`,
      is_default_outbound: true,
      config: { provider: "simulator", ring_seconds: 0.2, callee_lines: ["Hello?"] }
    })
    const page = await dashboard.loggedIn(user)
    await createAgent(page, "Two-step agent")
    await page.getByText("Version 1 — no changes").waitFor()

    // Add an end node and connect the start to it with the keyboard-first controls.
    await page.getByLabel("Node type").selectOption({ label: "End call" })
    await page.getByRole("button", { name: "Add node" }).click()
    const panel = page.getByRole("complementary", { name: "Selected item" })
    // The new node lands inside the visible canvas (the view moves to it).
    const canvas = page.getByRole("region", { name: /^Agent graph/ })
    const added = page.locator(".react-flow__node").filter({ hasText: "End call" })
    await expect.poll(async () => {
      const [box, node] = [await canvas.boundingBox(), await added.boundingBox()]
      return box !== null && node !== null && node.x >= box.x && node.y >= box.y &&
        node.x + node.width <= box.x + box.width && node.y + node.height <= box.y + box.height
    }, { timeout: 5000 }).toBe(true)
    await panel.getByLabel("Name", { exact: true }).fill("Goodbye")
    await panel.getByLabel("Prompt", { exact: true }).fill("Thank the caller and say goodbye.")
    await page.getByLabel("From", { exact: true }).selectOption({ label: "Start" })
    await page.getByLabel("To", { exact: true }).selectOption({ label: "Goodbye" })
    await page.getByRole("button", { name: "Add edge" }).click()
    await panel.getByRole("heading", { name: "Edge: Start → Goodbye" }).waitFor()
    // Both nodes and the edge are drawn on the canvas.
    expect(await page.locator(".react-flow__node").count()).toBe(2)
    expect(await page.locator(".react-flow__edge").count()).toBe(1)

    // A new edge comes with a condition to reword; emptied, the server's 422 lands on the edge and its field.
    expect(await panel.getByLabel("Condition", { exact: true }).inputValue()).toBe("The conversation is done and the call can end")
    await panel.getByLabel("Condition", { exact: true }).fill("")
    await page.getByRole("button", { name: "Save draft" }).click()
    await page.getByText(/The server found 1 problem/).waitFor()
    await panel.getByLabel("Problems with this edge").waitFor()
    expect(await panel.getByLabel("Condition", { exact: true }).getAttribute("aria-invalid")).toBe("true")
    expect(await page.locator(".react-flow__edge.has-issues").count()).toBe(1)
    await dashboard.screenshot(page, "agent-editor-validation")

    await panel.getByLabel("Condition", { exact: true }).fill("The caller has answered")
    // The fix takes the problem off the page at once, before the next save.
    await page.getByText(/The server found 1 problem/).waitFor({ state: "detached" })
    expect(await panel.getByLabel("Condition", { exact: true }).getAttribute("aria-invalid")).not.toBe("true")
    expect(await page.locator(".react-flow__edge.has-issues").count()).toBe(0)
    // Publishing waits for the editor's changes to be saved: it publishes the saved draft.
    expect(await publishing(page).getByRole("button", { name: /^Publish/ }).isDisabled()).toBe(true)
    await page.getByRole("button", { name: "Save draft" }).click()
    await page.getByText(/^Saved as draft version 2/).waitFor()
    await page.getByText("Version 2 — no changes").waitFor()
    await publishing(page).getByTestId("version-state").filter({ hasText: "Version 2 draft" }).waitFor()
    await publishing(page).getByText("The next campaign call runs version 1").waitFor()
    await publishing(page).getByRole("button", { name: "Publish version 2" }).click()
    await page.getByText("Version 2 published: the next campaign call runs it.").waitFor()
    await publishing(page).getByTestId("version-state").filter({ hasText: "Version 2 published" }).waitFor()
    await publishing(page).getByText("The next campaign call runs version 2").waitFor()
    const agents = await dashboard.api("GET", "/api/v1/workflow/fetch")
    const created = agents.find((a: { name: string }) => a.name === "Two-step agent")
    const workflow = await dashboard.api("GET", `/api/v1/workflow/fetch/${created.id}`)
    expect(workflow).toMatchObject({ version_number: 2, version_status: "published" })
    expect(workflow.workflow_definition.nodes.map((n: { type: string }) => n.type)).toEqual(["startCall", "endCall"])
    expect(workflow.workflow_definition.edges).toMatchObject([{ source: "start", data: { condition: "The caller has answered" } }])
    await dashboard.screenshot(page, "agent-editor")
    // The canvas works from the keyboard too: a focused node selected with Enter opens its form.
    await page.locator(".react-flow__node").filter({ hasText: "Start" }).focus()
    await page.keyboard.press("Enter")
    await panel.getByRole("heading", { name: "Start call: Start" }).waitFor()
    await page.setViewportSize(PHONE)
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "no sideways scrolling at 375 px").toBeLessThanOrEqual(PHONE.width)
    await page.setViewportSize(LAPTOP)

    // The versions list: the first is archived, the second published.
    await page.getByRole("navigation", { name: "Agent" }).getByRole("link", { name: "Versions" }).click()
    await page.getByRole("heading", { name: "Versions", level: 2 }).waitFor()
    const rows = page.locator("tbody tr")
    expect(await rows.count()).toBe(2)
    expect(await rows.nth(0).textContent()).toContain("published")
    expect(await rows.nth(1).textContent()).toContain("archived")

    // The agent's UUID is shown with a copy button that copies it.
    expect(await page.getByText(workflow.workflow_uuid, { exact: true }).count()).toBe(1)
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: dashboard.url })
    await page.getByRole("button", { name: "Copy Agent UUID" }).click()
    await page.getByText("Copied", { exact: true }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(workflow.workflow_uuid)

    // A test call from the agent page, as the logged-in user.
    await page.getByRole("navigation", { name: "Agent" }).getByRole("link", { name: "Test call" }).click()
    await page.getByLabel("Number to call").fill("+14155550123")
    expect(await page.getByLabel("API key").count()).toBe(0)
    await page.getByLabel("Call data (JSON)").fill("{\"first_name\": \"Ada\"}")
    await page.getByRole("button", { name: "Start test call" }).click()
    const runLink = page.getByRole("status").getByRole("link")
    await runLink.waitFor()
    await runLink.click()
    await page.getByRole("heading", { name: /^Run / }).waitFor()
    // The page follows the call until it ends; then its recording is there to play.
    await page.locator("audio").first().waitFor({ timeout: 60_000 }).catch((error: Error) => {
      // Without a recording the cause is on the server's side (the call's media session): show its log.
      throw new Error(`${error.message}\n--- server output (last 8000 characters) ---\n${dashboard.serverOutput().slice(-8000)}`)
    })
    await page.getByText("Hello Ada, this is the test agent.").waitFor()
    // The run names the agent's version, as the agent's pages do, and lists the call's duration once, with its unit.
    await page.getByText(/ran version 2 of the agent/).waitFor()
    expect(await page.getByText(/definition \d/).count()).toBe(0)
    const usage = page.getByRole("table", { name: "Usage and cost" })
    await usage.getByRole("row", { name: /^Call duration \d+(\.\d+)? s$/ }).waitFor()
    expect(await usage.getByRole("rowheader", { name: "Call duration", exact: true }).count()).toBe(1)
    const played = await playFirstRecording(page)
    expect(played.readyState).toBeGreaterThanOrEqual(1)
    expect(played.duration).toBeGreaterThan(0)
    expect(new URL(played.src).pathname).toMatch(/^\/api\/v1\/public\/download\/workflow\/[^/]+\/recording$/)
    expect(played.seekable).toBeCloseTo(played.duration, 1)
    expect(played.at).toBeCloseTo(played.duration / 2, 1)
    // The same page opened at another address of the server than the one its links are signed with
    // (AGENTLINE_PUBLIC_URL is the 127.0.0.1 one): the players play from the page's own origin.
    const localhost = dashboard.url.replace("127.0.0.1", "localhost")
    const elsewhere = await dashboard.newPage()
    await elsewhere.goto(`${localhost}${new URL(page.url()).pathname}`)
    await logIn(elsewhere, user)
    await elsewhere.getByRole("heading", { name: /^Run / }).waitFor()
    const there = await playFirstRecording(elsewhere)
    expect(there.duration).toBeCloseTo(played.duration, 2)
    expect(new URL(there.src).origin).toBe(localhost)
    await page.getByRole("heading", { name: "Timeline" }).waitFor()
    expect(await page.locator(".timeline li").count()).toBeGreaterThan(0)

    // An API trigger node gets its path minted on save, and the page shows its URL.
    await nav(page, "Agents")
    await page.getByRole("link", { name: "Two-step agent" }).click()
    await page.getByLabel("Node type").selectOption({ label: "API trigger" })
    await page.getByRole("button", { name: "Add node" }).click()
    await page.getByRole("button", { name: "Save draft" }).click()
    await page.getByText(/^Saved as draft version 3/).waitFor()
    const withTrigger = await dashboard.api("GET", `/api/v1/workflow/fetch/${created.id}`)
    const trigger = withTrigger.workflow_definition.nodes.find((n: { type: string }) => n.type === "trigger")
    expect(trigger.data.trigger_path).toMatch(/^[A-Za-z0-9_-]{1,36}$/)
    await page.getByText(`${dashboard.url}/api/v1/public/agent/${trigger.data.trigger_path}`, { exact: true }).waitFor()

    // Archive and restore.
    await page.getByRole("button", { name: "Archive agent" }).click()
    await page.getByText("This agent is archived: it takes no calls until it is restored.").waitFor()
    expect((await dashboard.api("GET", `/api/v1/workflow/fetch/${created.id}`)).status).toBe("archived")
    await page.getByRole("button", { name: "Restore agent" }).click()
    await page.getByRole("button", { name: "Archive agent" }).waitFor()
    expect((await dashboard.api("GET", `/api/v1/workflow/fetch/${created.id}`)).status).toBe("active")

    await nav(page, "Agents")
    await page.getByRole("link", { name: "Two-step agent" }).waitFor()
    await dashboard.screenshot(page, "agents")
  }, 120_000)

  it("a draft edited while a campaign runs the published version (the campaign's calls keep the published version); published, the next campaign runs it", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    // One call at a time, each a short conversation (the agent says its greeting and hangs up), so the
    // campaign is still dialing when the draft is saved.
    const config = await dashboard.api("POST", "/api/v1/organizations/telephony-configs", {
      name: `Draft sim ${Date.now()}`,
      config: { provider: "simulator", ring_seconds: 0.5, callee_lines: ["Hello?"] }
    })
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: `Live agent ${Date.now()}`,
      workflow_definition: {
        nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Greet.", greeting: "Hello from the published version." } }],
        edges: []
      }
    })
    const campaignOf = async (name: string, phones: ReadonlyArray<string>) => {
      const csv = `phone_number\n${phones.join("\n")}\n`
      const presigned = await dashboard.api("POST", "/api/v1/storage/presigned-upload-url", { file_name: `${name}.csv`, file_size: csv.length })
      expect((await fetch(presigned.upload_url, { method: "PUT", headers: { "content-type": "text/csv" }, body: csv })).ok).toBe(true)
      return dashboard.api("POST", "/api/v1/campaign/create", {
        name,
        workflow_id: agent.id,
        source_type: "csv",
        source_id: presigned.file_key,
        telephony_configuration_id: config.id,
        max_concurrency: 1
      })
    }
    const runsOf = async (campaignId: number) => (await dashboard.api("GET", `/api/v1/campaign/${campaignId}/runs?limit=100`)).runs as Array<any>
    const untilCompleted = async (campaignId: number) => {
      const deadline = Date.now() + 120_000
      while ((await dashboard.api("GET", `/api/v1/campaign/${campaignId}`)).state !== "completed") {
        if (Date.now() > deadline) throw new Error(`campaign ${campaignId} did not complete:\n${dashboard.serverOutput().slice(-4000)}`)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
    }

    const page = await dashboard.loggedIn(user)
    await page.goto(`/agents/${agent.id}`)
    await publishing(page).getByText("The next campaign call runs version 1").waitFor()
    const campaign = await campaignOf("While editing", ["+14155550401", "+14155550402", "+14155550403", "+14155550404"])
    await dashboard.api("POST", `/api/v1/campaign/${campaign.id}/start`)

    // The greeting changed in the editor and saved: a draft, while the campaign dials.
    await page.getByRole("button", { name: "Start call: Start" }).click()
    const panel = page.getByRole("complementary", { name: "Selected item" })
    await panel.getByLabel("Greeting", { exact: true }).fill("Hello from the new draft.")
    await page.getByRole("button", { name: "Save draft" }).click()
    await page.getByText(/^Saved as draft version 2/).waitFor()
    const savedAt = Date.now()
    expect((await dashboard.api("GET", `/api/v1/campaign/${campaign.id}`)).state, "the campaign was still running when the draft was saved").toBe("running")
    await publishing(page).getByTestId("version-state").filter({ hasText: "Version 2 draft" }).waitFor()
    await publishing(page).getByText("The next campaign call runs version 1").waitFor()
    await dashboard.screenshot(page, "agent-draft")

    await untilCompleted(campaign.id)
    const runs = await runsOf(campaign.id)
    expect(runs.map((r) => r.definition_id)).toEqual(runs.map(() => agent.current_definition_id))
    const afterSave = runs.filter((r) => Date.parse(r.created_at) > savedAt)
    expect(afterSave.length, "calls placed after the draft was saved").toBeGreaterThan(0)
    // What the callee heard: the published greeting, on a call placed after the draft was saved.
    await page.goto(`/runs/${agent.id}/${afterSave[0].id}`)
    await page.getByText("Hello from the published version.").waitFor({ timeout: 30_000 })
    expect(await page.getByText("Hello from the new draft.").count()).toBe(0)

    // Published: the next campaign's calls run the new version.
    await page.goto(`/agents/${agent.id}`)
    await publishing(page).getByRole("button", { name: "Publish version 2" }).click()
    await page.getByText("Version 2 published: the next campaign call runs it.").waitFor()
    await publishing(page).getByText("The next campaign call runs version 2").waitFor()
    const published = await dashboard.api("GET", `/api/v1/workflow/fetch/${agent.id}`)
    const next = await campaignOf("After publishing", ["+14155550405"])
    await dashboard.api("POST", `/api/v1/campaign/${next.id}/start`)
    await untilCompleted(next.id)
    const [nextRun] = await runsOf(next.id)
    expect(nextRun.definition_id).toBe(published.current_definition_id)
    expect(nextRun.definition_id).not.toBe(agent.current_definition_id)
    await page.goto(`/runs/${agent.id}/${nextRun.id}`)
    await page.getByText("Hello from the new draft.").waitFor({ timeout: 30_000 })
  }, 240_000)

  it("sets template variables and configurations as a new draft, and saves nothing when nothing changed", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Configured agent",
      workflow_configurations: { dictionary: "Agentline" },
      workflow_definition: { nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Greet {{first_name}} about {{plan}}." } }], edges: [] }
    })
    const page = await dashboard.loggedIn(user)
    await page.goto(`/agents/${agent.id}/settings`)
    // The variables the prompt uses are offered.
    await page.getByRole("button", { name: /^Add first_name/ }).click()
    await page.getByLabel("Variable 1 value").fill("there")
    await page.getByLabel("Longest call (seconds)").fill("600")
    await page.getByLabel("Detect voicemail").check()
    // The agent's own voice (model_overrides), offered from the vendors the build has.
    await page.getByLabel("Voice (text to speech)").fill("openai:alloy")
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByText(/^Saved as draft version 2/).waitFor()
    const saved = await dashboard.api("GET", `/api/v1/workflow/fetch/${agent.id}`)
    expect(saved.template_context_variables).toEqual({ first_name: "there" })
    // The key the form has no field for is kept.
    expect(saved.workflow_configurations).toEqual({
      dictionary: "Agentline",
      max_call_duration: 600,
      voicemail_detection: { enabled: true },
      model_overrides: { tts: "openai:alloy" }
    })

    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByText("Nothing changed.").waitFor()
    expect((await dashboard.api("GET", `/api/v1/workflow/fetch/${agent.id}`)).version_number).toBe(2)
  }, 60_000)

  it("makes an agent from a built-in template, then duplicates it", async () => {
    const user = await dashboard.newUser()
    const page = await dashboard.loggedIn(user)
    await nav(page, "Agents")
    await page.getByRole("link", { name: "New agent" }).click()
    const templates = await dashboard.api("GET", "/api/v1/workflow/templates")
    const survey = templates.find((t: any) => t.id === 3)
    await page.getByRole("radio", { name: new RegExp(survey.template_name) }).check()
    // The template's name is offered; the agent's own name replaces it.
    expect(await page.getByLabel("Agent name").inputValue()).toBe(survey.template_name)
    const name = `Survey ${Date.now()}`
    await page.getByLabel("Agent name").fill(name)
    await page.getByRole("button", { name: "Create from template" }).click()
    await page.getByRole("heading", { name, level: 1 }).waitFor()
    const made = (await dashboard.api("GET", "/api/v1/workflow/fetch?status=active")).find((a: any) => a.name === name)
    const agent = await dashboard.api("GET", `/api/v1/workflow/fetch/${made.id}`)
    expect(agent.workflow_definition.nodes.map((n: any) => n.type)).toEqual(survey.template_json.nodes.map((n: any) => n.type))
    expect(page.url()).toMatch(new RegExp(`/agents/${made.id}$`))

    await page.getByRole("button", { name: "Duplicate" }).click()
    await page.getByRole("heading", { name: `${name} (copy)`, level: 1 }).waitFor()
    const copy = (await dashboard.api("GET", "/api/v1/workflow/fetch?status=active")).find((a: any) => a.name === `${name} (copy)`)
    expect(page.url()).toMatch(new RegExp(`/agents/${copy.id}$`))
    expect((await dashboard.api("GET", `/api/v1/workflow/fetch/${copy.id}`)).workflow_definition.nodes.length).toBe(agent.workflow_definition.nodes.length)
  }, 60_000)
})
