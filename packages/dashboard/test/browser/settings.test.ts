/**
 * Settings in the real dashboard (browser tests, docs/dashboard.md): API keys (created in the page and
 * used from outside with `X-API-Key`, archived, reactivated), the organization's users (added, a role
 * changed, deactivated, reactivated, a password reset, removed) and its concurrency limit, and what
 * members see.
 */
import type { Page } from "playwright-core"
import { expect, it } from "vitest"
import { dashboardSuite, logIn, PHONE } from "./Harness.js"

const openSettings = async (page: Page, section: "API keys" | "Users" | "Organization") => {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click()
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: section }).click()
  await page.getByRole("heading", { name: section, level: 2 }).waitFor()
}

const createKeyInPage = async (page: Page, name: string) => {
  await page.getByLabel("Name").fill(name)
  await page.getByRole("button", { name: "Create key" }).click()
  await page.getByRole("heading", { name: `Your new key “${name}”` }).waitFor()
  return page.getByLabel("New API key").inputValue()
}

dashboardSuite("Settings", (dashboard) => {
  it("an API key created in the page is shown once, copies, and works from outside with X-API-Key", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    const page = await dashboard.loggedIn(user)
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: dashboard.url })
    await openSettings(page, "API keys")

    // The form lists every field the API refuses (here a name of spaces only, which the browser allows).
    await page.getByLabel("Name").fill("   ")
    await page.getByRole("button", { name: "Create key" }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toContain("name must not be empty")

    const key = await createKeyInPage(page, "CRM integration")
    expect(key).toMatch(/^agl_/)
    // The focus is on the new key's panel, so a screen reader reads it out.
    await page.waitForFunction(() => document.activeElement?.id === "new-key-heading")
    await page.getByRole("button", { name: "Copy key" }).click()
    await page.getByText("Copied to the clipboard.").waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)
    await dashboard.screenshot(page, "settings-api-keys")

    // Used from outside the browser, with the key alone.
    const listed = await fetch(`${dashboard.url}/api/v1/user/api-keys`, { headers: { "X-API-Key": key } })
    expect(listed.status).toBe(200)
    const keys = await listed.json()
    expect(keys.map((k: { name: string }) => k.name)).toContain("CRM integration")

    // Shown once: gone from the page when dismissed, and never in the list (only its prefix).
    await page.getByRole("button", { name: "I have copied it" }).click()
    await page.getByRole("cell", { name: "CRM integration", exact: true }).waitFor()
    expect(await page.content()).not.toContain(key)
    await page.reload()
    await page.getByRole("cell", { name: "CRM integration", exact: true }).waitFor()
    expect(await page.content()).not.toContain(key)
  })

  it("archiving a key stops it at once; an administrator reactivates it from the archived list", async () => {
    const user = await dashboard.newUser({ role: "admin" })
    const page = await dashboard.loggedIn(user)
    await openSettings(page, "API keys")
    const key = await createKeyInPage(page, "Nightly export")
    await page.getByRole("button", { name: "I have copied it" }).click()
    const status = () => fetch(`${dashboard.url}/api/v1/user/api-keys`, { headers: { "X-API-Key": key } }).then((r) => r.status)
    expect(await status()).toBe(200)

    await page.getByRole("button", { name: "Archive Nightly export" }).click()
    // The confirmation takes the focus, so Enter confirms.
    await page.waitForFunction(() => document.activeElement?.textContent === "Yes, archive “Nightly export”")
    await page.keyboard.press("Enter")
    await page.getByText("Archived the key “Nightly export”.").waitFor({ state: "attached" })
    await page.getByRole("cell", { name: "Nightly export", exact: true }).waitFor({ state: "detached" })
    expect(await status()).toBe(401)

    await page.getByLabel("Show archived keys").check()
    const row = page.getByRole("row").filter({ hasText: "Nightly export" })
    await row.getByRole("button", { name: "Reactivate Nightly export" }).waitFor()
    await expect(row.getByRole("cell").nth(2).textContent()).resolves.toMatch(/^Archived /)
    await dashboard.screenshot(page, "settings-api-keys-archived")
    await row.getByRole("button", { name: "Reactivate Nightly export" }).click()
    await row.getByRole("cell", { name: "Active" }).waitFor()
    expect(await status()).toBe(200)
  })

  it("an administrator adds a user with a temporary password and a role; the user must change it at first login", async () => {
    const admin = await dashboard.newUser({ role: "admin" })
    const page = await dashboard.loggedIn(admin)
    await openSettings(page, "Users")
    const email = `colleague-${Date.now().toString(36)}@${dashboard.dialect}.example.com`
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Temporary password").fill("welcome-aboard")
    await page.getByLabel("Role", { exact: true }).selectOption("admin")
    await page.getByRole("button", { name: "Add user" }).click()
    await page.getByText(`Added ${email}. They must change the temporary password at first login.`).waitFor()
    const row = page.getByRole("row").filter({ hasText: email })
    await row.waitFor()
    expect(await row.getByLabel(`Role of ${email}`).inputValue()).toBe("admin")
    await expect(row.getByRole("cell").allTextContents()).resolves.toEqual([
      email,
      expect.any(String),
      "Active",
      "Temporary (not changed yet)",
      expect.any(String),
      expect.any(String)
    ])

    // The same email again: the API's 409 is shown.
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Temporary password").fill("welcome-aboard")
    await page.getByRole("button", { name: "Add user" }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toMatch(/The user was not added/)

    const users = await dashboard.api("GET", "/api/v1/users")
    expect(users.users.find((u: { email: string }) => u.email === email)).toMatchObject({ role: "admin", must_change_password: true })
  })

  it("an administrator changes a role, deactivates, reactivates, resets a password and removes a user", async () => {
    const admin = await dashboard.newUser({ role: "admin" })
    const ann = await dashboard.newUser({ role: "member" })
    const ben = await dashboard.newUser({ role: "member" })
    const userOf = async (email: string) =>
      (await dashboard.api("GET", "/api/v1/users")).users.find((u: { email: string }) => u.email === email)
    const loginStatus = (email: string, password: string) =>
      fetch(`${dashboard.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password })
      }).then((r) => r.status)
    const page = await dashboard.loggedIn(admin)
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: dashboard.url })
    await openSettings(page, "Users")
    const row = (email: string) => page.getByRole("row").filter({ hasText: email })
    // Your own row offers no way to lock yourself out.
    await row(admin.email).getByText("(you)").waitFor()
    expect(await row(admin.email).getByRole("button").count()).toBe(0)

    // A role, changed from the row's menu.
    await row(ann.email).getByLabel(`Role of ${ann.email}`).selectOption("admin")
    await page.getByRole("status").filter({ hasText: `${ann.email} is now administrator.` }).waitFor()
    expect(await userOf(ann.email)).toMatchObject({ role: "admin" })

    // Deactivated behind a confirmation: the row says so, the API refuses their login; reactivated.
    await row(ben.email).getByRole("button", { name: `Deactivate ${ben.email}` }).click()
    await page.getByRole("button", { name: `Yes, deactivate ${ben.email}` }).click()
    await row(ben.email).getByRole("cell", { name: /^Deactivated / }).waitFor()
    expect(await userOf(ben.email)).toMatchObject({ is_active: false })
    expect(await loginStatus(ben.email, ben.password)).toBe(403)
    // At the login form they are told why, and who can help.
    const benPage = await dashboard.newPage()
    await benPage.goto("/")
    await logIn(benPage, ben)
    await benPage.getByRole("alert").filter({ hasText: "This account is deactivated; an administrator of your organization can reactivate it" }).waitFor()
    await dashboard.screenshot(page, "settings-users")
    await row(ben.email).getByRole("button", { name: `Reactivate ${ben.email}` }).click()
    await row(ben.email).getByRole("cell", { name: "Active", exact: true }).waitFor()
    expect(await loginStatus(ben.email, ben.password)).toBe(200)

    // A password reset shows the temporary password once; it logs in (and must be changed), the old one no longer does.
    await row(ben.email).getByRole("button", { name: `Reset password ${ben.email}` }).click()
    await page.getByRole("button", { name: `Yes, reset the password of ${ben.email}` }).click()
    await page.getByRole("heading", { name: `Temporary password of ${ben.email}` }).waitFor()
    const temporary = await page.getByRole("textbox", { name: `Temporary password of ${ben.email}` }).inputValue()
    await page.getByRole("button", { name: "Copy password" }).click()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(temporary)
    expect(await loginStatus(ben.email, ben.password)).toBe(401)
    expect(await loginStatus(ben.email, temporary)).toBe(200)
    await page.getByRole("button", { name: "I have copied it" }).click()
    expect(await page.content()).not.toContain(temporary)
    await row(ben.email).getByRole("cell", { name: "Temporary (not changed yet)" }).waitFor()

    // Removed: gone from the list and from the API.
    await row(ben.email).getByRole("button", { name: `Remove ${ben.email}` }).click()
    await page.getByRole("button", { name: `Yes, remove ${ben.email}` }).click()
    await page.getByRole("status").filter({ hasText: `Removed ${ben.email}.` }).waitFor()
    await row(ben.email).waitFor({ state: "detached" })
    expect(await userOf(ben.email)).toBeUndefined()
    expect(await loginStatus(ben.email, temporary)).toBe(401)
  })

  it("an administrator sets the organization's concurrency limit", async () => {
    const admin = await dashboard.newUser({ role: "admin" })
    const page = await dashboard.loggedIn(admin)
    await openSettings(page, "Organization")
    await page.getByLabel("Calls in progress at once").fill("25")
    await page.getByRole("button", { name: "Save limit" }).click()
    await page.getByText("Saved: at most 25 calls at once.").waitFor()
    await dashboard.screenshot(page, "settings-organization")
    expect((await dashboard.api("GET", "/api/v1/organizations/current")).concurrent_call_limit).toBe(25)
    await page.reload()
    await page.getByText("25 calls at once", { exact: true }).waitFor()
    // The field starts from the saved value.
    await page.waitForFunction(() => (document.getElementById("concurrency-limit") as HTMLInputElement | null)?.value === "25")
  })

  it("a member manages their own keys and sees no administrator settings; a phone width needs no sideways scrolling", async () => {
    const member = await dashboard.newUser({ role: "member" })
    const page = await dashboard.loggedIn(member, PHONE)
    await page.getByRole("link", { name: "Settings" }).click()
    const settingsNav = page.getByRole("navigation", { name: "Settings" })
    await settingsNav.getByRole("link", { name: "Password" }).waitFor()
    await expect(settingsNav.getByRole("link").allTextContents()).resolves.toEqual(["API keys", "Webhooks", "Credentials", "Do not call", "Recordings", "Password"])
    await createKeyInPage(page, "My script")
    await page.getByRole("button", { name: "I have copied it" }).click()
    // At a phone width each cell also reads its column's name ("Name: My script").
    await page.getByRole("cell", { name: "Name: My script", exact: true }).waitFor()
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await dashboard.screenshot(page, "settings-api-keys-phone")
    await page.goto("/settings/users")
    await page.getByText("This settings page is for administrators.").waitFor()
  })
})
