/**
 * `agentline doctor` as a user runs it (issue 25): the compiled command line against a data directory
 * whose server stored two Twilio configurations (one with a wrong token) talking to the fake Twilio, on
 * a machine without espeak-ng (simulated with a `PATH` that lacks it) and with a public URL nobody
 * answers. Each problem gets its line with what to do, the rest is `ok`, and the exit code is 1.
 */
import * as FakeTwilio from "@agentline/telephony-twilio/testing/FakeTwilio"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { api, bootstrap, environment, freePort, startServer, tempDir } from "./Processes.js"
import * as Doctor from "../src/doctor/Doctor.js"

const bin = new URL("../bin/agentline.js", import.meta.url).pathname

const doctor = (env: Record<string, string | undefined>, args: ReadonlyArray<string> = []) =>
  new Promise<{ readonly code: number; readonly stdout: string }>((resolve) => {
    execFile(process.execPath, [bin, "doctor", ...args], { env: env as NodeJS.ProcessEnv }, (error, stdout) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout }))
  })

/** A `PATH` with the programs the offline speech needs (and the shell that looks for them), `missing` excepted. */
const pathWithout = (missing: string) => {
  const dir = tempDir()
  for (const program of ["sh", "sox", "pocketsphinx_continuous", "espeak-ng"]) {
    if (program === missing) continue
    const found = (process.env.PATH ?? "").split(NodePath.delimiter).map((d) => NodePath.join(d, program)).find((p) => NodeFs.existsSync(p))
    if (found !== undefined) NodeFs.symlinkSync(found, NodePath.join(dir, program))
  }
  return dir
}

describe("agentline doctor", () => {
  it("renders one line per check, with what to do; fails only on a failure", () => {
    expect(Doctor.render({ name: "disk", status: "ok", message: "12.0 GiB free" })).toBe("[ ok ] disk: 12.0 GiB free")
    expect(Doctor.render({ name: "speech (tts)", status: "fail", message: "espeak-ng is not installed", advice: "apt-get install espeak-ng sox" }))
      .toBe("[FAIL] speech (tts): espeak-ng is not installed. Do: apt-get install espeak-ng sox")
    expect(Doctor.exitCode([{ name: "a", status: "warn", message: "" }, { name: "b", status: "skip", message: "" }])).toBe(0)
    expect(Doctor.exitCode([{ name: "a", status: "ok", message: "" }, { name: "b", status: "fail", message: "" }])).toBe(1)
  })

  it.live("reports a missing espeak-ng, a refused provider token and an unreachable public URL, each with its advice", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeTwilio.start({ accounts: [{ sid: "AC0000000000000000000000000000doc", token: "the-right-token" }] })),
        (f) => Effect.promise(f.close)
      )
      const dataDir = tempDir()
      const key = yield* Effect.promise(() => bootstrap(undefined, dataDir, "doctor"))
      const server = yield* Effect.promise(() => startServer(undefined, dataDir, { AGENTLINE_TWILIO_API_URL: fake.url }))
      for (const [name, token] of [["good", "the-right-token"], ["wrong", "a-wrong-token"]] as const) {
        yield* Effect.promise(() =>
          api(server.url, key, "POST", "/api/v1/organizations/telephony-configs", {
            name,
            config: { provider: "twilio", account_sid: "AC0000000000000000000000000000doc", auth_token: token }
          })
        )
      }
      expect(yield* Effect.promise(server.stop)).toBe(0)

      const closedPort = yield* Effect.promise(freePort)
      const env = {
        ...environment(undefined, dataDir),
        AGENTLINE_TWILIO_API_URL: fake.url,
        AGENTLINE_PUBLIC_URL: `https://127.0.0.1:${closedPort}`,
        AGENTLINE_LLM: undefined,
        AGENTLINE_STT: undefined,
        AGENTLINE_TTS: undefined,
        PATH: pathWithout("espeak-ng")
      }
      const { code, stdout } = yield* Effect.promise(() => doctor(env))
      const lines = stdout.trim().split("\n")
      const line = (prefix: string) => lines.find((l) => l.startsWith(prefix))
      expect(code).toBe(1)
      expect(line("[ ok ] database:")).toBeDefined()
      expect(line("[ ok ] migrations:")).toBeDefined()
      expect(line("[FAIL] speech (tts):")).toMatch(/espeak-ng not installed \(apt-get install espeak-ng sox\): agents cannot speak.*\. Do: install them/)
      expect(line("[ ok ] telephony \"good\" (twilio")).toMatch(/Twilio accepts the credentials/)
      expect(line("[FAIL] telephony \"wrong\" (twilio")).toMatch(
        /Twilio refused to check the credentials: Authenticate \(code 20003, HTTP 401\)\. Do: correct the credentials/
      )
      expect(line("[FAIL] public URL:")).toMatch(
        new RegExp(`https://127\\.0\\.0\\.1:${closedPort} is not reachable from this machine \\(.+\\)\\. Do: start the server`)
      )
      expect(line("[warn] llm:")).toMatch(/AGENTLINE_LLM is not set.*Do: set AGENTLINE_LLM/)
      expect(line("[ ok ] stt:")).toBeDefined()
      expect(line("[ ok ] disk:")).toMatch(/GiB free/)
      expect(lines.at(-1)).toMatch(/^3 checks failed, 1 warning\.$/)
      // One line per check, each with a status; no credential in the report.
      expect(lines.slice(0, -1).every((l) => /^\[( ok |warn|FAIL|skip)\] /.test(l))).toBe(true)
      expect(stdout).not.toContain("a-wrong-token")
      expect(stdout).not.toContain("the-right-token")

      // Offline: nothing leaves the machine, and the report says which checks it skipped.
      const offline = yield* Effect.promise(() => doctor({ ...env, PATH: process.env.PATH }, ["--offline"]))
      expect(offline.stdout).toMatch(/\[skip\] telephony "wrong" \(twilio.*credentials not checked \(--offline\)/)
      expect(offline.stdout).toMatch(/\[skip\] public URL: .*not checked \(--offline\)/)
      expect(offline.code).toBe(0)
    }).pipe(Effect.scoped), 120_000)
})
