/**
 * Real server processes for crash and multi-process tests: `agentline serve` on a free loopback port,
 * against a given PostgreSQL database, killed with SIGKILL when a test wants a crash.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodeOs from "node:os"
import * as NodePath from "node:path"
import { promisify } from "node:util"

const bin = new URL("../bin/agentline.js", import.meta.url).pathname

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = NodeNet.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as NodeNet.AddressInfo).port
      server.close(() => resolve(port))
    })
  })

export interface ServerProcess {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  readonly kill: () => Promise<void>
  /** SIGTERM (a graceful stop); resolves with the exit code once the process is gone. */
  readonly stop: () => Promise<number | null>
}

/** `databaseUrl` undefined: the embedded SQLite file in `dataDir`. */
export const environment = (databaseUrl: string | undefined, dataDir: string, extra: Record<string, string> = {}) => ({
  ...withoutDatabaseUrl(process.env),
  ...(databaseUrl !== undefined ? { DATABASE_URL: databaseUrl } : {}),
  AGENTLINE_DATA_DIR: dataDir,
  AGENTLINE_SECRET_KEY: "process-test-secret",
  AGENTLINE_DISPATCHER_LEASE_SECONDS: "2",
  ...extra
})

const withoutDatabaseUrl = ({ DATABASE_URL: _, ...env }: NodeJS.ProcessEnv) => env

export const startServer = async (
  databaseUrl: string | undefined,
  dataDir: string,
  extra: Record<string, string> = {}
): Promise<ServerProcess> => {
  const port = await freePort()
  const url = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, [bin, "serve"], {
    env: environment(databaseUrl, dataDir, { PORT: String(port), HOST: "127.0.0.1", AGENTLINE_PUBLIC_URL: url, ...extra }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (d) => (output += d))
  child.stderr!.on("data", (d) => (output += d))
  // Ready when the server says it listens (it migrates and starts the dispatcher first).
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start within 120 s:\n${output}`)), 120_000)
    const check = () => {
      if (output.includes("Listening on")) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on("data", check)
    child.stderr!.on("data", check)
    child.once("exit", () => {
      clearTimeout(timer)
      reject(new Error(`server exited early:\n${output}`))
    })
  })
  return {
    url,
    child,
    output: () => output,
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGKILL")
      }),
    stop: () =>
      new Promise<number | null>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
        child.once("exit", (code) => resolve(code))
        child.kill("SIGTERM")
      })
  }
}

export const cli = async (databaseUrl: string | undefined, dataDir: string, args: ReadonlyArray<string>) => {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args], { env: environment(databaseUrl, dataDir) })
  return stdout
}

/** Polls `check` (every 200 ms) until it holds; fails after `timeoutMillis` naming `what`. */
export const waitFor = async (what: string, check: () => Promise<boolean> | boolean, timeoutMillis = 90_000) => {
  const deadline = Date.now() + timeoutMillis
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`timed out waiting for ${what}`)
}

export const tempDir = () => NodeFs.mkdtempSync(NodePath.join(NodeOs.tmpdir(), "agentline-proc-"))

/** An API key of a new organization, made with the command line. */
export const bootstrap = async (databaseUrl: string | undefined, dataDir: string, organization: string) => {
  await cli(databaseUrl, dataDir, ["users", "create", "--email", `admin@${organization}.test`, "--password", "admin-password", "--organization", organization])
  const out = await cli(databaseUrl, dataDir, ["api-keys", "create", "--email", `admin@${organization}.test`])
  return out.trim().split("\n").at(-1)!
}

export const api = async (base: string, key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {})
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`)
  return text === "" ? undefined : JSON.parse(text)
}

/** Everything a campaign needs, through the public API: simulator config, agent, uploaded CSV. */
export const prepareCampaign = async (
  base: string,
  key: string,
  options: {
    readonly contacts: number
    readonly prefix: string
    readonly ringSeconds: number
    readonly talkSeconds: number
    readonly limit: number
    /** The agent's `max_call_duration` (when the dispatcher asks the provider about a call that did not end). */
    readonly maxCallSeconds?: number
  }
) => {
  await api(base, key, "PUT", "/api/v1/organizations/current/concurrent-call-limit", { concurrent_call_limit: options.limit })
  await api(base, key, "POST", "/api/v1/organizations/telephony-configs", {
    name: "sim",
    is_default_outbound: true,
    config: { provider: "simulator", ring_seconds: options.ringSeconds, talk_seconds: options.talkSeconds }
  }).catch(() => undefined)
  const agent = await api(base, key, "POST", "/api/v1/workflow/create/definition", {
    name: "agent",
    ...(options.maxCallSeconds !== undefined ? { workflow_configurations: { max_call_duration: options.maxCallSeconds } } : {}),
    workflow_definition: {
      nodes: [
        { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Hello" } },
        { id: "end", type: "endCall", position: { x: 0, y: 1 }, data: { name: "End", prompt: "Bye" } }
      ],
      edges: [{ id: "e", source: "start", target: "end", data: { label: "end", condition: "done" } }]
    }
  })
  const csv = "phone_number\n" + Array.from({ length: options.contacts }, (_, i) => `${options.prefix}${String(i).padStart(4, "0")}`).join("\n") + "\n"
  const presigned = await api(base, key, "POST", "/api/v1/storage/presigned-upload-url", {
    file_name: "contacts.csv",
    file_size: Buffer.byteLength(csv),
    content_type: "text/csv"
  })
  const put = await fetch(presigned.upload_url.replace(/^https?:\/\/[^/]+/, base), {
    method: "PUT",
    headers: { "content-type": "text/csv" },
    body: csv
  })
  if (!put.ok) throw new Error(`upload failed: ${put.status} ${await put.text()}`)
  return { agentId: agent.id as number, fileKey: presigned.file_key as string }
}
