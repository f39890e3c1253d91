/**
 * The example third-party adapter as its authors would ship it: a package outside the workspace that
 * depends on `@agentline/telephony-kit` alone, installed from the kit's packed tarball (compiled
 * `dist/`, nothing else of Agentline), type-checked against the kit's published declarations, and
 * passing the kit's contract suite from its own tests against its own fake.
 */
import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { promisify } from "node:util"
import { describe, expect, it } from "vitest"

const run = promisify(execFile)
const root = new URL("../../", import.meta.url).pathname
const example = new URL("../third-party-telephony/", import.meta.url).pathname

describe("a third-party adapter package on the kit's packed tarball", () => {
  it("installs the kit like any dependency, type-checks, and passes the contract suite", async () => {
    const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-acme-adapter-"))
    const tarballs = NodePath.join(dir, "tarballs")
    NodeFs.mkdirSync(tarballs)
    // `npm test` built dist/ first (`npm run check`); packing takes what the kit's `files` names.
    await run("npm", ["pack", "--workspace", "@agentline/telephony-kit", "--pack-destination", tarballs], { cwd: root, maxBuffer: 16 * 1024 * 1024 })
    const [kit] = NodeFs.readdirSync(tarballs).filter((f) => f.endsWith(".tgz"))
    expect(kit).toMatch(/^agentline-telephony-kit-.*\.tgz$/)

    const project = NodePath.join(dir, "acme")
    NodeFs.mkdirSync(project)
    for (const entry of ["package.json", "tsconfig.json", "vitest.config.ts", "src", "test"]) {
      NodeFs.cpSync(NodePath.join(example, entry), NodePath.join(project, entry), { recursive: true })
    }
    // --prefer-offline: what `npm ci` put in the cache is used without asking the registry again.
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", NodePath.join(tarballs, kit!)], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024
    })
    // The kit came from the tarball, compiled, and nothing else of Agentline came with it.
    expect(NodeFs.readdirSync(NodePath.join(project, "node_modules/@agentline"))).toEqual(["telephony-kit"])
    expect(NodeFs.existsSync(NodePath.join(project, "node_modules/@agentline/telephony-kit/dist/testing/Contract.js"))).toBe(true)

    await run("npx", ["tsc", "--noEmit", "-p", "."], { cwd: project, maxBuffer: 16 * 1024 * 1024 })
    // The adapter's own test run, not a worker of this one.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST") && name !== "NODE_ENV"))
    const tested = await run("npx", ["vitest", "run", "--reporter=verbose"], { cwd: project, maxBuffer: 16 * 1024 * 1024, env })
    const output = tested.stdout.replace(/\x1b\[[0-9;]*m/g, "")
    expect(output).toMatch(/acme adapter contract/)
    expect(output).toMatch(/Tests\s+\d+ passed/)
    expect(output).not.toMatch(/Tests\s+\d+ failed/)
    NodeFs.rmSync(dir, { recursive: true, force: true })
  }, 300_000)
})
