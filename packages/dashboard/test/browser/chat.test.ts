/**
 * Talking to an agent by text in a browser (browser tests on the real server, SQLite and PostgreSQL),
 * with the FAKE OpenAI-compatible model playing the agent (`scriptedReplies`: it qualifies on the first
 * answer, then extracts the city and ends):
 *
 * - the dashboard's chat panel beside the agent editor, through a two-node graph with a transition and
 *   an extraction: send, read the answers and the step, rewind, send again, restart;
 * - the chat widget (`/embed/widget.js`) on a plain HTML page served by another HTTP server (another
 *   origin): from an origin the token allows, a visitor opens the chat and reads the published agent's
 *   answers; from one it does not, no button is drawn and nothing is opened.
 */
import { startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import { Effect, Exit, Scope } from "effect"
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, expect, it } from "vitest"
import { agentDefinition, scriptedReplies } from "../../../http/src/DemoConversations.js"
import { dashboardSuite } from "./Harness.js"

let fakeUrl: string | undefined
const scope = Effect.runSync(Scope.make())

/** A plain website on another port: `/` is the page `html` gives for the request's host. */
let site: { readonly port: number; html: (host: string) => string; readonly server: NodeHttp.Server } | undefined

beforeAll(async () => {
  fakeUrl = (await Effect.runPromise(Scope.extend(startFakeOpenAi([], scriptedReplies), scope))).url
  const server = NodeHttp.createServer((request, response) => {
    if (request.url !== "/") {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
    response.end(site?.html(request.headers.host ?? "") ?? "")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  site = { port: (server.address() as AddressInfo).port, html: () => "", server }
})

afterAll(async () => {
  await new Promise<void>((resolve) => site?.server.close(() => resolve()) ?? resolve())
  await Effect.runPromise(Scope.close(scope, Exit.void))
})

const need = <A>(value: A | undefined): A => {
  if (value === undefined) throw new Error("not started")
  return value
}

/** Two steps: the start qualifies (a transition), the next one asks the city (an extraction). */
const twoNodes = {
  nodes: agentDefinition.nodes.filter((node) => node.id !== "bye"),
  edges: agentDefinition.edges.filter((edge) => edge.target !== "bye")
}

dashboardSuite("Text chat", (dashboard) => {
  it("the chat panel beside the editor talks with the draft through a transition and an extraction; rewind and restart", async () => {
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Chat qualifier",
      workflow_definition: twoNodes,
      template_context_variables: { product: "solar panels", first_name: "Ada" }
    })
    const user = await dashboard.newUser()
    const page = await dashboard.loggedIn(user)
    await page.goto(`/agents/${agent.id}`)
    const panel = page.getByRole("complementary", { name: "Chat with the agent" })
    await panel.getByRole("button", { name: "Start a chat" }).click()
    const log = panel.getByRole("list", { name: "Conversation" })
    await log.getByText("Hello Ada, this is Acme.").waitFor()
    const step = panel.locator(".chat-state dd").first()
    await expect(step.textContent()).resolves.toBe("Start")

    const message = panel.getByLabel("Message")
    await message.fill("Yes, I am interested.")
    await panel.getByRole("button", { name: "Send" }).click()
    // The start's transition: the next step asks the city.
    await log.getByText("Which city do you live in?").waitFor()
    await expect.poll(() => step.textContent()).toBe("Ask city")

    // Back to the opening: the later turn is gone, the conversation is at the start again.
    await panel.getByRole("button", { name: "Rewind to turn 1" }).click()
    await expect.poll(() => log.getByText("Which city do you live in?").count()).toBe(0)
    await expect.poll(() => step.textContent()).toBe("Start")
    expect(await log.getByRole("listitem").count()).toBe(1)

    await message.fill("Yes, I am interested.")
    await panel.getByRole("button", { name: "Send" }).click()
    await log.getByText("Which city do you live in?").waitFor()
    await message.fill("I live in Paris.")
    await panel.getByRole("button", { name: "Send" }).click()
    // The extraction: the city is in the session's gathered context.
    await panel.locator(".chat-state").getByText("Paris").waitFor()
    // The model ended the conversation (its end-call tool) after its goodbye.
    await log.getByText("Thank you, goodbye.").waitFor()
    await panel.getByText("The conversation has ended.").waitFor()
    await dashboard.screenshot(page, "agent-chat-panel")

    // The run of the session has the conversation kept after the rewind.
    const runs = await dashboard.api("GET", `/api/v1/workflow/${agent.id}/runs`)
    const chatRun = runs.runs.find((r: { mode: string }) => r.mode === "textchat")
    const detail = await dashboard.api("GET", `/api/v1/workflow/${agent.id}/runs/${chatRun.id}`)
    expect(detail.gathered_context.city).toBe("Paris")
    expect(detail.logs.transcript.map((line: { role: string; text: string }) => line.text)).toEqual(
      ["Hello Ada, this is Acme.", "Yes, I am interested.", "Which city do you live in?", "I live in Paris.", "Thank you, goodbye."]
    )

    // Restart: a new session, from the opening.
    await panel.getByRole("button", { name: "Restart" }).click()
    await expect.poll(() => log.getByRole("listitem").count()).toBe(1)
    await expect.poll(() => panel.locator(".chat-state").getByText("Paris").count()).toBe(0)
  }, 180_000)

  it("the chat widget on another website's page: an allowed page chats with the published agent, another origin is refused", async () => {
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Acme front desk",
      workflow_definition: agentDefinition,
      template_context_variables: { product: "solar panels" }
    })
    const { port } = need(site)
    const allowed = `http://127.0.0.1:${port}`
    const token = await dashboard.api("POST", `/api/v1/workflow/${agent.id}/embed-token`, {
      allowed_domains: [allowed],
      settings: { widgetType: "chat", buttonText: "Chat with Acme", texts: { chatInputPlaceholder: "Ask Acme" } }
    })
    // The snippet the site owner pastes, as the token gives it.
    expect(token.embed_script).toContain(`${dashboard.url}/embed/widget.js`)
    // The page passes the visitor's name to the conversation.
    const snippet = token.embed_script.replace("<script ", `<script data-agentline-context='{"first_name":"Di"}' `)
    need(site).html = (host) =>
      `<!doctype html><html><head><title>Acme shop (${host})</title></head><body><h1>Acme shop</h1>${snippet}</body></html>`

    const page = await dashboard.newPage()
    await page.goto(`${allowed}/`)
    await page.getByRole("heading", { name: "Acme shop" }).waitFor()
    await page.getByRole("button", { name: "Chat with Acme" }).click()
    const chat = page.getByRole("dialog", { name: "Acme front desk" })
    await chat.getByText("Hello Di, this is Acme.").waitFor()
    const input = chat.getByRole("textbox", { name: "Ask Acme" })
    await input.fill("Yes, I am interested.")
    await input.press("Enter")
    await chat.getByText("Which city do you live in?").waitFor()
    await dashboard.screenshot(page, "embed-chat-widget", { fullPage: false })
    await input.fill("I live in Paris.")
    await chat.getByRole("button", { name: "Send message" }).click()
    // The agent extracted the city and ended the conversation.
    await chat.getByText("Conversation ended.").waitFor()

    const run = await dashboard.api("GET", `/api/v1/workflow/${agent.id}/runs`)
    const chatRun = run.runs.find((r: { mode: string }) => r.mode === "textchat")
    expect(chatRun).toBeDefined()
    const detail = await dashboard.api("GET", `/api/v1/workflow/${agent.id}/runs/${chatRun.id}`)
    expect(detail.gathered_context.city).toBe("Paris")
    expect(detail.annotations.embed).toEqual({ source: "embed_widget", modality: "text" })
    expect(detail.logs.transcript.map((line: { text: string }) => line.text)).toContain("I live in Paris.")

    // The same page from an origin the token does not name (localhost, not 127.0.0.1): no button.
    const elsewhere = await dashboard.newPage()
    const refusal = elsewhere.waitForEvent("console", (message) => message.text().startsWith("Agentline widget:"))
    await elsewhere.goto(`http://localhost:${port}/`)
    await elsewhere.getByRole("heading", { name: "Acme shop" }).waitFor()
    expect((await refusal).text()).toBe(`Agentline widget: Domain not allowed: http://localhost:${port}`)
    const widget = elsewhere.locator("[data-agentline-widget]")
    await expect(widget.getAttribute("data-state")).resolves.toBe("refused")
    expect(await elsewhere.getByRole("button", { name: "Chat with Acme" }).count()).toBe(0)
  }, 180_000)
}, { serverEnv: () => ({ AGENTLINE_LLM: "openai:gpt-4.1-mini", OPENAI_BASE_URL: need(fakeUrl), OPENAI_API_KEY: "sk-fake", AGENTLINE_STT: "openai:whisper-1", AGENTLINE_TTS: "openai:tts-1" }) })
