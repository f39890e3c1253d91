/**
 * `agentline demo --conversations`, as a new user runs it (a real process on the embedded default):
 * the simulated callees talk with the agent through the media streams, and the demo prints each
 * run's conversation. The agent's side comes from the FAKE language model (no AGENTLINE_LLM), the
 * callee's words from the offline recognizer, whose accuracy this does not judge.
 */
import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"
import { environment } from "./Processes.js"

const bin = new URL("../bin/agentline.js", import.meta.url).pathname

describe("the conversations demo", () => {
  it("runs a campaign of talking calls on the simulator and prints what was said", async () => {
    const dataDir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-demo-talk-"))
    const env = { ...environment(undefined, dataDir), AGENTLINE_LLM: "" }
    const { stdout } = await promisify(execFile)(process.execPath, [bin, "demo", "--conversations", "--contacts", "2"], {
      env,
      timeout: 120_000
    })
    expect(stdout).toContain("FAKE OpenAI-compatible server")
    expect(stdout).toContain("campaign completed: 2/2 contacts done")
    for (const name of ["Ada", "Grace"]) {
      const run = stdout.slice(stdout.indexOf(`(${name}): completed`))
      expect(run).toContain(`agent : Hello ${name}, this is Acme.`)
      expect(run).toMatch(/callee: \S+/)
      expect(run).toContain("agent : Which city do you live in?")
      const files = [...run.matchAll(/ {2}(transcript|recording): (\S+)/g)].slice(0, 2).map((m) => m[2]!)
      expect(files.length).toBe(2)
      for (const file of files) expect(NodeFs.statSync(file).size).toBeGreaterThan(100)
    }
  }, 150_000)
})
