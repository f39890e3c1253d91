/**
 * Logging in and out of the real dashboard (browser tests, docs/dashboard.md): the forced password
 * change at first login, the session cookie, logout, and a session that ends under an open page.
 */
import { expect, it } from "vitest"
import { dashboardSuite, logIn, PHONE } from "./Harness.js"

dashboardSuite("Login", (dashboard) => {
  it("first login with a temporary password asks for a new one, then opens the dashboard with an HttpOnly cookie", async () => {
    const page = await dashboard.newPage()
    await page.goto("/agents")
    // Not logged in: the login page, remembering where the person was going.
    await page.waitForURL(/\/login\?next=%2Fagents$/)
    await page.getByRole("heading", { name: "Log in" }).waitFor()
    await page.waitForFunction(() => document.title === "Log in · Agentline")
    await dashboard.screenshot(page, "login")

    await logIn(page, { email: dashboard.admin.email, password: "wrong-password" })
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The email or password is wrong.")

    await logIn(page, dashboard.admin)
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor()
    await dashboard.screenshot(page, "first-login-password-change")
    await page.getByLabel("Temporary password").fill(dashboard.admin.password)
    await page.getByLabel("New password", { exact: true }).fill("a-new-admin-password")
    await page.getByLabel("Repeat the new password").fill("a-different-password")
    await page.getByRole("button", { name: "Change password" }).click()
    await expect(page.getByRole("alert").textContent()).resolves.toBe("The two new passwords differ.")
    await page.getByLabel("Repeat the new password").fill("a-new-admin-password")
    await page.getByRole("button", { name: "Change password" }).click()

    await page.waitForURL(/\/agents$/)
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    expect(await page.getByRole("banner").textContent()).toContain(dashboard.admin.email)

    // The session is an HttpOnly SameSite=Strict cookie that scripts cannot read; the CSRF cookie is readable.
    const cookies = await page.context().cookies()
    const session = cookies.find((c) => c.name === "agentline_session")
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" })
    expect(cookies.find((c) => c.name === "agentline_csrf")).toMatchObject({ httpOnly: false, sameSite: "Strict" })
    const visible = await page.evaluate(() => document.cookie)
    expect(visible).toContain("agentline_csrf=")
    expect(visible).not.toContain("agentline_session")

    // A reload keeps the session; the old password no longer works, the new one does.
    await page.reload()
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    await expect(fetch(`${dashboard.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: dashboard.admin.email, password: dashboard.admin.password })
    }).then((r) => r.status)).resolves.toBe(401)
    await expect(fetch(`${dashboard.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: dashboard.admin.email, password: "a-new-admin-password" })
    }).then((r) => r.status)).resolves.toBe(200)
  })

  it("works from the keyboard alone: the skip link first, the form in order, Enter submits", async () => {
    const user = await dashboard.newUser()
    const page = await dashboard.newPage()
    await page.goto("/login")
    await page.getByLabel("Email").focus()
    await page.keyboard.type(user.email)
    await page.keyboard.press("Tab")
    await page.keyboard.type(user.password)
    await page.keyboard.press("Enter")
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    // After a navigation in the page, the focus is on the new page's heading (for screen readers).
    await page.waitForFunction(() => document.activeElement?.tagName === "H1")
    // On a page load, the first Tab stop is the skip link, which leads to the main content.
    await page.reload()
    await page.getByRole("navigation", { name: "Main" }).waitFor()
    await page.keyboard.press("Tab")
    const focused = await page.evaluate(() => document.activeElement?.textContent)
    expect(focused).toBe("Skip to content")
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("main")
  })

  it("logout ends the session: the login page shows, and the old cookie no longer works", async () => {
    const user = await dashboard.newUser()
    const page = await dashboard.loggedIn(user)
    const cookie = (await page.context().cookies()).find((c) => c.name === "agentline_session")!
    await page.getByRole("button", { name: "Log out" }).click()
    await page.getByRole("heading", { name: "Log in" }).waitFor()
    expect(page.url()).toMatch(/\/login$/)
    expect((await page.context().cookies()).map((c) => c.name)).not.toContain("agentline_session")
    const me = await fetch(`${dashboard.url}/api/v1/auth/me`, { headers: { cookie: `agentline_session=${cookie.value}` } })
    expect(me.status).toBe(401)
    await page.goto("/settings/api-keys")
    await page.waitForURL(/\/login\?next=/)
  })

  it("a session that ends under an open page returns to login with a message, then back to the page", async () => {
    const user = await dashboard.newUser()
    const page = await dashboard.loggedIn(user, PHONE)
    await page.goto("/settings/api-keys")
    await page.getByRole("heading", { name: "API keys" }).waitFor()
    // Elsewhere, the user changes the password: every other session of theirs ends, this page's too.
    const login = await fetch(`${dashboard.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: user.email, password: user.password })
    }).then((r) => r.json())
    const changed = await fetch(`${dashboard.url}/api/v1/auth/change-password`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${login.token}` },
      body: JSON.stringify({ current_password: user.password, new_password: "changed-elsewhere" })
    })
    expect(changed.status).toBe(200)

    // The next call the page makes answers 401: the login page, saying why.
    await page.getByLabel("Show archived keys").click()
    await page.getByRole("heading", { name: "Log in" }).waitFor()
    await expect(page.getByRole("status").first().textContent()).resolves.toBe(
      "Your session has expired. Log in again to continue."
    )
    await dashboard.screenshot(page, "session-expired-phone")
    await logIn(page, { email: user.email, password: "changed-elsewhere" })
    await page.waitForURL(/\/settings\/api-keys$/)
    await page.getByRole("heading", { name: "API keys" }).waitFor()
  })

  it("a server without a language model says so: in its output at start, and in a banner on every page with what to set", async () => {
    // The test servers run without AGENTLINE_LLM, as a new user's first `npm start` does.
    expect(dashboard.serverOutput()).toContain("Voice runtime: LLM none, STT local (pocketsphinx), TTS local (espeak-ng), VAD silero")
    expect(dashboard.serverOutput()).toMatch(/WARN[^\n]*\n={100}\nNo language model is configured \(AGENTLINE_LLM is not set\)/)
    const page = await dashboard.loggedIn(await dashboard.newUser())
    const banner = page.getByRole("region", { name: "Server configuration" })
    await banner.getByText("No language model: agents cannot hold a conversation.").waitFor()
    expect(await banner.textContent()).toContain("Set AGENTLINE_LLM=openai:<model> and restart the server")
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Runs" }).click()
    await page.getByRole("heading", { name: "Runs", level: 1 }).waitFor()
    expect(await banner.isVisible()).toBe(true)
    await page.setViewportSize(PHONE)
    expect(await page.evaluate(() => document.documentElement.scrollWidth), "no sideways scrolling at 375 px").toBeLessThanOrEqual(PHONE.width)
  })
})
