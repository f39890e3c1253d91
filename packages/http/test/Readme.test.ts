/**
 * The README's command list and configuration table against the code: every usage line the command
 * line prints is in the README's list (the demo's `--provider` and `--conversations` included), and the
 * variables a new user was missing are in the table.
 */
import * as NodeFs from "node:fs"
import { describe, expect, it } from "vitest"

const read = (path: string) => NodeFs.readFileSync(new URL(path, import.meta.url), "utf8")
const readme = read("../../../README.md")
const cli = read("../src/cli.ts")

/** The README's "Command line" block, each line without its trailing `# comment` and spaces. */
const documentedCommands = (): ReadonlyArray<string> => {
  const section = readme.slice(readme.indexOf("## Command line"))
  const block = section.slice(section.indexOf("```") + 3, section.indexOf("```", section.indexOf("```") + 3))
  return block.split("\n").map((line) => line.replace(/\s+#.*$/, "").trim()).filter((line) => line !== "")
}

describe("README", () => {
  it("lists every command line the CLI's usage prints", () => {
    const usage = cli.slice(cli.indexOf("const usage = `") + "const usage = `".length)
    const lines = usage.slice(0, usage.indexOf("`")).split("\n").map((l) => l.trim()).filter((l) => l.startsWith("agentline "))
    expect(lines).toContain("agentline demo [--contacts N] [--provider simulator|twilio]")
    expect(lines).toContain("agentline demo --conversations [--contacts N]")
    const documented = documentedCommands()
    for (const line of lines) {
      // The README may group several of the usage's lines on one (`serve | migrate`).
      const covered = documented.includes(line) || documented.some((d) => d.split(" | ").some((part) => line === part || line.endsWith(` ${part}`)))
      expect(covered, `README's command list lacks: ${line}`).toBe(true)
    }
  })

  it("documents AGENTLINE_VAD in the configuration table", () => {
    expect(readme).toMatch(/^\| `AGENTLINE_VAD` \| [^|]+\| [^|]*silero[^|]*energy[^|]*\|$/m)
  })
})
