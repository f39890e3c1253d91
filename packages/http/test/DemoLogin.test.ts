/**
 * `agentline demo` prints a login for the organization it made, and that login works: the server
 * started afterwards on the same data lets the printed email and password in (the dashboard's login).
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { DEMO_PASSWORD, loginLine } from "../src/Demo.js"
import { environment, startServer, tempDir } from "./Processes.js"

const bin = new URL("../bin/agentline.js", import.meta.url).pathname

describe("the demo's login", () => {
  it("is printed at the start and at the end, and logs in to the server started on the demo's data", async () => {
    const dataDir = tempDir()
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "demo", "--contacts", "3"], {
      env: environment(undefined, dataDir),
      timeout: 120_000
    })
    const emails = [...stdout.matchAll(/log in as (\S+) with the password (\S+)\./g)]
    expect(emails.length).toBe(2)
    const email = emails[0]![1]!
    expect(emails[0]![2]).toBe(DEMO_PASSWORD)
    expect(emails[1]![1]).toBe(email)
    expect(stdout).toContain(loginLine(email))
    // Again after the summary tables, where it is not scrolled away.
    expect(stdout.indexOf("contact_state")).toBeGreaterThan(0)
    expect(stdout.lastIndexOf(loginLine(email))).toBeGreaterThan(stdout.indexOf("contact_state"))

    const server = await startServer(undefined, dataDir)
    try {
      const login = await fetch(`${server.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: DEMO_PASSWORD })
      })
      expect(login.status).toBe(200)
      const wrong = await fetch(`${server.url}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email, password: "not-the-password" })
      })
      expect(wrong.status).toBe(401)
    } finally {
      await server.stop()
    }
  }, 150_000)
})
