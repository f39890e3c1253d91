/**
 * The management pages under Settings (docs/dashboard.md), in the real dashboard against the real
 * server: each creates, edits and deletes what it manages, and the API sees the result. Webhooks: an
 * endpoint added (its secret shown once), edited, its delivery of a real event re-sent, deleted.
 * Credentials, the do-not-call list (added, imported from a CSV, looked up, removed) and recordings
 * (a WAV file uploaded, renamed, deleted).
 */
import type { Page } from "playwright-core"
import { expect, it } from "vitest"
import { dashboardSuite } from "./Harness.js"

const openSettings = async (page: Page, section: string) => {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click()
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: section }).click()
  await page.getByRole("heading", { name: section, level: 2 }).waitFor()
}

const confirm = async (page: Page, button: string, yes: string) => {
  await page.getByRole("button", { name: button, exact: true }).click()
  await page.getByRole("group", { name: "Confirm" }).getByRole("button", { name: yes, exact: true }).click()
}

/** A WAV file of `seconds` of 16-bit mono silence at 8 kHz. */
const wav = (seconds: number): Buffer => {
  const samples = Math.round(8000 * seconds)
  const data = samples * 2
  const buffer = Buffer.alloc(44 + data)
  buffer.write("RIFF", 0)
  buffer.writeUInt32LE(36 + data, 4)
  buffer.write("WAVEfmt ", 8)
  buffer.writeUInt32LE(16, 16)
  buffer.writeUInt16LE(1, 20)
  buffer.writeUInt16LE(1, 22)
  buffer.writeUInt32LE(8000, 24)
  buffer.writeUInt32LE(16000, 28)
  buffer.writeUInt16LE(2, 32)
  buffer.writeUInt16LE(16, 34)
  buffer.write("data", 36)
  buffer.writeUInt32LE(data, 40)
  return buffer
}

dashboardSuite("Management pages", (dashboard) => {
  it("webhooks: adds an endpoint (secret shown once), edits it, re-sends a delivery of a real event, deletes it", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    const page = await dashboard.loggedIn(user)
    await openSettings(page, "Webhooks")
    // Nothing listens there: deliveries fail and wait for their retry, which is what a re-send is for.
    const url = `http://127.0.0.1:9/hooks/${dashboard.dialect}-${Date.now().toString(36)}`
    await page.getByLabel("Address (URL)").fill(url)
    await page.getByLabel("Description").fill("CRM")
    await page.getByLabel("run.started").check()
    await page.getByRole("button", { name: "Add endpoint" }).click()
    await page.getByText(`Added the endpoint ${url}.`).waitFor()
    const secret = await page.locator(".copyable code").first().textContent()
    expect(secret).toMatch(/^whsec_/)
    await page.getByRole("button", { name: "I have copied it" }).click()
    expect(await page.content()).not.toContain(secret!)
    const [created] = (await dashboard.api("GET", "/api/v1/organizations/webhooks")).endpoints.filter((e: { url: string }) => e.url === url)
    expect(created).toMatchObject({ description: "CRM", enabled: true })
    expect([...created.event_types].sort()).toEqual(["run.ended", "run.started"])

    await page.getByRole("button", { name: `Edit ${url}` }).click()
    const form = page.getByRole("form", { name: `Edit ${url}` })
    await form.getByLabel("Description").fill("CRM (production)")
    await form.getByLabel("run.started").uncheck()
    await form.getByRole("button", { name: "Save endpoint" }).click()
    await page.getByText(`Saved the endpoint ${url}.`).waitFor()
    expect(await dashboard.api("GET", `/api/v1/organizations/webhooks/${created.id}`)).toMatchObject({
      description: "CRM (production)",
      event_types: ["run.ended"]
    })

    // A real event: a test call of an agent on the simulator ends, and run.ended is delivered (and fails).
    await dashboard.api("POST", "/api/v1/organizations/telephony-configs", {
      name: `Hooks sim ${Date.now()}`,
      is_default_outbound: true,
      config: { provider: "simulator", ring_seconds: 0.1, talk_seconds: 0.2 }
    })
    const agent = await dashboard.api("POST", "/api/v1/workflow/create/definition", {
      name: "Hooked agent",
      workflow_definition: { nodes: [{ id: "start", type: "startCall", data: { name: "Start", prompt: "Say hello." } }], edges: [] }
    })
    await dashboard.api("POST", "/api/v1/telephony/initiate-call", { workflow_id: agent.id, phone_number: "+14155550199" })
    await page.getByRole("button", { name: `Deliveries of ${url}` }).click()
    const resend = page.getByRole("button", { name: /^Re-send run\.ended #\d+$/ })
    await expect.poll(async () => {
      if (await resend.count() > 0) return true
      await page.getByRole("button", { name: `Deliveries of ${url}` }).click()
      await page.getByRole("button", { name: `Deliveries of ${url}` }).click()
      return false
    }, { timeout: 30_000, interval: 1000 }).toBe(true)
    await resend.first().click()
    await page.getByText("Re-sent the run.ended event.").waitFor()
    await dashboard.screenshot(page, "settings-webhooks")

    await confirm(page, `Delete ${url}`, `Yes, delete ${url}`)
    await page.getByText(`Deleted the endpoint ${url}.`).waitFor()
    const left = (await dashboard.api("GET", "/api/v1/organizations/webhooks")).endpoints
    expect(left.map((e: { url: string }) => e.url)).not.toContain(url)
  }, 90_000)

  it("credentials: adds one whose secret never comes back, renames it and replaces its secret, deletes it", async () => {
    const user = await dashboard.newUser({ role: "member" })
    const page = await dashboard.loggedIn(user)
    await openSettings(page, "Credentials")
    const name = `CRM key ${Date.now().toString(36)}`
    await page.getByLabel("Name", { exact: true }).fill(name)
    await page.getByLabel("Type").selectOption("bearer_token")
    await page.getByLabel("Token").fill("tok-very-secret")
    await page.getByRole("button", { name: "Add credential" }).click()
    await page.getByText(`Added the credential “${name}”.`).waitFor()
    expect(await page.content()).not.toContain("tok-very-secret")
    const listed = (await dashboard.api("GET", "/api/v1/credentials")).find((c: { name: string }) => c.name === name)
    expect(listed).toMatchObject({ credential_type: "bearer_token" })
    expect(JSON.stringify(listed)).not.toContain("tok-very-secret")

    await page.getByRole("button", { name: `Edit ${name}` }).click()
    const form = page.getByRole("form", { name: `Edit ${name}` })
    await form.getByLabel("Name", { exact: true }).fill(`${name} (rotated)`)
    await form.getByLabel("Description").fill("Rotated monthly")
    await form.getByLabel("Token").fill("tok-new-secret")
    await form.getByRole("button", { name: "Save credential" }).click()
    await page.getByText(`Saved the credential “${name} (rotated)”.`).waitFor()
    await dashboard.screenshot(page, "settings-credentials")
    expect(await dashboard.api("GET", `/api/v1/credentials/${listed.uuid}`)).toMatchObject({ name: `${name} (rotated)`, description: "Rotated monthly" })

    await confirm(page, `Delete ${name} (rotated)`, `Yes, delete “${name} (rotated)”`)
    await page.getByText(`Deleted the credential “${name} (rotated)”.`).waitFor()
    const after = await dashboard.api("GET", "/api/v1/credentials")
    expect(after.map((c: { uuid: string }) => c.uuid)).not.toContain(listed.uuid)
  }, 60_000)

  it("do not call: adds numbers, imports a CSV, looks a number up, and an administrator removes one", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    const page = await dashboard.loggedIn(user)
    await openSettings(page, "Do not call")
    const base = 1000 + Math.floor(Math.random() * 8000)
    const first = `+1415555${base}`
    const second = `+1415556${base}`
    await page.getByLabel("Numbers", { exact: true }).fill(`${first}\n${second}\n${first}`)
    await page.getByLabel("Reason").fill("Asked by email")
    await page.getByRole("button", { name: "Add to the list" }).click()
    await page.getByText("Added 2 numbers; 0 already listed.").waitFor()
    await page.getByRole("cell", { name: first, exact: true }).waitFor()

    const imported = `+1415557${base}`
    await page.getByLabel("CSV file with a phone_number column").setInputFiles({
      name: "dnc.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(`phone_number\n${imported}\n${first}\n`)
    })
    await page.getByText("Imported dnc.csv: 1 added, 1 already listed.").waitFor()
    await page.getByRole("cell", { name: imported, exact: true }).waitFor()

    await page.getByLabel("Look up a number").fill(imported)
    await page.getByRole("button", { name: "Look up" }).click()
    await page.getByTestId("lookup-result").filter({ hasText: `${imported} is on the list` }).waitFor()
    await dashboard.screenshot(page, "settings-do-not-call")

    await confirm(page, `Remove ${second}`, `Yes, remove ${second}`)
    await page.getByText(`Removed ${second} from the list.`).waitFor()
    await page.getByRole("cell", { name: second, exact: true }).waitFor({ state: "detached" })
    const check = await dashboard.api("GET", `/api/v1/organizations/do-not-call/check?phone_number=${encodeURIComponent(second)}`)
    expect(check.listed).toBe(false)
    const still = await dashboard.api("GET", `/api/v1/organizations/do-not-call/check?phone_number=${encodeURIComponent(first)}`)
    expect(still).toMatchObject({ listed: true, entry: { reason: "Asked by email" } })
  }, 60_000)

  it("recordings: uploads a WAV file with its name and words, renames it, deletes it", async () => {
    const user = await dashboard.newUser({ role: "member" })
    const page = await dashboard.loggedIn(user)
    await openSettings(page, "Recordings")
    const name = `greeting_${Date.now().toString(36)}`
    await page.getByLabel("Audio file (WAV)").setInputFiles({ name: "greeting.wav", mimeType: "audio/wav", buffer: wav(0.5) })
    await page.getByLabel("Recording id").fill(name)
    await page.getByLabel("What it says").fill("Hello, this is Acme.")
    await page.getByRole("button", { name: "Upload recording" }).click()
    await page.getByText(`Uploaded greeting.wav as “${name}”.`).waitFor()
    const card = page.getByRole("listitem", { name: `Recording ${name}` })
    await card.getByText("0.5 s, 8000 Hz, mono").waitFor()
    const listed = (await dashboard.api("GET", "/api/v1/workflow-recordings/")).recordings.find((r: { recording_id: string }) => r.recording_id === name)
    expect(listed).toMatchObject({ transcript: "Hello, this is Acme." })

    await card.getByRole("button", { name: `Edit ${name}` }).click()
    const form = page.getByRole("form", { name: `Edit ${name}` })
    await form.getByLabel("Recording id").fill(`${name}_v2`)
    await form.getByLabel("What it says").fill("Hello, this is Acme calling.")
    await form.getByRole("button", { name: "Save recording" }).click()
    await page.getByText(`Saved the recording “${name}_v2”.`).waitFor()
    await dashboard.screenshot(page, "settings-recordings")
    const renamed = (await dashboard.api("GET", "/api/v1/workflow-recordings/")).recordings.find((r: { id: number }) => r.id === listed.id)
    expect(renamed).toMatchObject({ recording_id: `${name}_v2`, transcript: "Hello, this is Acme calling." })

    await confirm(page, `Delete ${name}_v2`, `Yes, delete “${name}_v2”`)
    await page.getByText(`Deleted the recording “${name}_v2”.`).waitFor()
    const after = (await dashboard.api("GET", "/api/v1/workflow-recordings/")).recordings
    expect(after.map((r: { id: number }) => r.id)).not.toContain(listed.id)
  }, 60_000)
}, { serverEnv: { AGENTLINE_WEBHOOK_ALLOW_PRIVATE: "true" } })
