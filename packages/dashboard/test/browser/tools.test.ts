/**
 * Tools in the real dashboard (browser test on the real server, SQLite and PostgreSQL): an HTTP tool
 * created in the Tools page against a local API (the server allows private addresses for it), tested
 * with sample arguments (the result the model would get shown), chosen on an agent step's form and
 * saved as a draft, then archived.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startToolApi, type ToolApi } from "../../../http/src/testing/ToolServers.js"
import { dashboardSuite } from "./Harness.js"

const nav = (page: Page, section: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: section }).click()

let api: ToolApi | undefined
beforeAll(async () => {
  api = await startToolApi()
})
afterAll(async () => {
  await api?.close()
})

dashboardSuite("Tools", (dashboard) => {
  it("creates an HTTP tool, tests it with sample arguments, chooses it on an agent's step, and archives it", async () => {
    const user = await dashboard.newUser({ role: "member" })
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: `Orders desk ${Date.now()}`,
      workflow_definition: { nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Help with orders." } }], edges: [] }
    })
    const page = await dashboard.loggedIn(user)
    await nav(page, "Tools")
    await page.getByRole("heading", { name: "Tools", level: 1 }).waitFor()
    await page.getByRole("button", { name: "New tool" }).click()
    const form = page.getByRole("form", { name: "New tool" })
    await form.getByLabel("Name", { exact: true }).fill("Order status")
    await form.getByLabel("Description").fill("Looks up an order's delivery status.")
    // A placeholder naming no parameter: the server's 422 is shown on the form.
    await form.getByLabel("URL").fill(`${api!.url}/orders/{{order_id}}`)
    await form.getByRole("button", { name: "Create tool" }).click()
    await form.getByRole("alert").getByText("{{order_id}}, which names no parameter", { exact: false }).waitFor()
    await form.getByRole("button", { name: "Add parameter" }).click()
    await form.getByLabel("Parameter 1 name").fill("order_id")
    await form.getByLabel("Parameter 1 description").fill("The order's id")
    await form.getByLabel("Said while waiting").fill("One moment, let me check.")
    await form.getByRole("button", { name: "Create tool" }).click()

    await page.getByRole("heading", { name: /Order status/, level: 1 }).waitFor()
    await page.getByLabel("Arguments (JSON)").fill("{\"order_id\": \"A17\"}")
    await page.getByRole("button", { name: "Run test" }).click()
    const result = page.locator("pre.tool-result")
    await result.waitFor()
    expect(JSON.parse(await result.innerText())).toMatchObject({ status: 200, data: { id: "A17", status: "shipped" } })
    expect(api!.received().at(-1)?.url).toBe("/orders/A17")
    await dashboard.screenshot(page, "tools")

    // Chosen on the agent's start step, and saved.
    await page.goto(`/agents/${agent.id}`)
    await page.locator(".react-flow__node").filter({ hasText: "Start" }).click()
    const panel = page.getByRole("complementary", { name: "Selected item" })
    await panel.getByLabel("Order status (HTTP)").check()
    await page.getByRole("button", { name: "Save draft" }).click()
    await page.getByText(/^Saved as draft version 2/).waitFor()
    const tools = await dashboard.api("GET", "/api/v1/tools")
    const saved = await dashboard.api("GET", `/api/v1/workflow/fetch/${agent.id}`)
    expect(saved.workflow_definition.nodes[0].data.tool_uuids).toEqual([tools[0].tool_uuid])

    await page.goto(`/tools/${tools[0].tool_uuid}`)
    await page.getByRole("button", { name: "Archive" }).click()
    await page.getByRole("button", { name: "Unarchive" }).waitFor()
    expect((await dashboard.api("GET", `/api/v1/tools/${tools[0].tool_uuid}`)).status).toBe("archived")
  }, 120_000)
}, { serverEnv: { AGENTLINE_WEBHOOK_ALLOW_PRIVATE: "true" } })
