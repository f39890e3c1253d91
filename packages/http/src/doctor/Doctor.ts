/**
 * `agentline doctor`: what a user gets wrong, checked from the server's own environment, one line per
 * check with what to do. A failed check makes the command exit non-zero; a warning does not.
 *
 * - the database: reachable, every migration applied;
 * - the offline speech default: espeak-ng and sox (TTS), pocketsphinx and its model (STT), when chosen;
 * - the LLM, STT and TTS: which are configured, and whether their keys are accepted (one cheap request
 *   each; `--offline` skips them and says so);
 * - `AGENTLINE_PUBLIC_URL`: HTTPS, and reachable from this machine (its `/api/v1/health` answers);
 * - each stored telephony configuration: its provider accepts its credentials (`verifyCredentials`);
 * - free disk space where recordings are stored.
 */
import { Migrations } from "@agentline/sql"
import type { SecretBox } from "@agentline/core/crypto/SecretBox"
import { openConfiguration } from "@agentline/core/telephony/TelephonyConfigs"
import type { TelephonyConfigsRepo } from "@agentline/core/telephony/TelephonyConfigsRepo"
import type { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import * as Installed from "@agentline/voice-local/Installed"
import { NodeContext } from "@effect/platform-node"
import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { OPENAI_DEFAULT_URL, withoutCredentials } from "../voice/VoiceReadiness.js"

export type Status = "ok" | "warn" | "fail" | "skip"

export interface Check {
  readonly name: string
  readonly status: Status
  /** What was found. */
  readonly message: string
  /** What to do about it (for `warn` and `fail`). */
  readonly advice?: string
}

const ok = (name: string, message: string): Check => ({ name, status: "ok", message })
const fail = (name: string, message: string, advice: string): Check => ({ name, status: "fail", message, advice })
const warn = (name: string, message: string, advice: string): Check => ({ name, status: "warn", message, advice })
const skip = (name: string, message: string): Check => ({ name, status: "skip", message })

/** One line per check: `[FAIL] speech (tts): espeak-ng is not installed. Do: apt-get install espeak-ng sox`. */
export const render = (check: Check): string => {
  const tag = { ok: "[ ok ]", warn: "[warn]", fail: "[FAIL]", skip: "[skip]" }[check.status]
  return `${tag} ${check.name}: ${check.message}${check.advice !== undefined ? `. Do: ${check.advice}` : ""}`
}

/** Non-zero when any check failed. */
export const exitCode = (checks: ReadonlyArray<Check>): number => (checks.some((c) => c.status === "fail") ? 1 : 0)

// ------------------------------------------------------------------------------------------ database

export const database = (description: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const reached = yield* sql`SELECT 1`.pipe(Effect.timeout("5 seconds"), Effect.either)
    if (reached._tag === "Left") {
      const reason = reached.left._tag === "TimeoutException" ? "no answer within 5 seconds" : reached.left.message
      return [fail("database", `${description} is not reachable (${reason})`, "check DATABASE_URL and that the database server runs and accepts this machine")]
    }
    const pending = yield* Migrations.pending
    return [
      ok("database", `${description} answers`),
      pending.length === 0
        ? ok("migrations", "every migration is applied")
        : warn("migrations", `not applied yet: ${pending.join(", ")}`, "run `agentline migrate` (`agentline serve` also migrates when it starts)")
    ]
  })

// -------------------------------------------------------------------------------------- speech

/**
 * The offline engines' programs and model, for the services that chose them (`local`): what the server
 * itself checks at start (`@agentline/voice-local/Installed`), with what to do.
 */
export const speech = (choices: { readonly stt: string; readonly tts: string }) =>
  Effect.gen(function*() {
    const checks: Array<Check> = []
    if (choices.tts === "local") {
      const missing = yield* Installed.textToSpeechMissing
      checks.push(Option.match(missing, {
        onNone: () => ok("speech (tts)", "espeak-ng and sox are installed (the offline voice)"),
        onSome: (what) =>
          fail(
            "speech (tts)",
            `${what}: agents cannot speak with AGENTLINE_TTS=local (the default)`,
            "install them, or choose a vendor voice (AGENTLINE_TTS=elevenlabs:<voice id> with ELEVENLABS_API_KEY, see docs/voice.md)"
          )
      }))
    } else checks.push(skip("speech (tts)", `the offline voice is not used (AGENTLINE_TTS=${choices.tts})`))
    if (choices.stt === "local") {
      const missing = yield* Installed.speechToTextMissing()
      checks.push(Option.match(missing, {
        onNone: () => ok("speech (stt)", "pocketsphinx and its US English model are installed (the offline recognizer)"),
        onSome: (what) =>
          fail(
            "speech (stt)",
            `${what}: agents cannot hear callers with AGENTLINE_STT=local (the default)`,
            "install them, or choose a vendor (AGENTLINE_STT=deepgram:nova-3 with DEEPGRAM_API_KEY)"
          )
      }))
    } else checks.push(skip("speech (stt)", `the offline recognizer is not used (AGENTLINE_STT=${choices.stt})`))
    return checks
  }).pipe(Effect.provide(NodeContext.layer))

// ------------------------------------------------------------------------------- vendors' keys

export interface VoiceEnvironment {
  readonly llm: string | undefined
  readonly stt: string
  readonly tts: string
  readonly env: Readonly<Record<string, string | undefined>>
  /** `--offline`: no request leaves the machine. */
  readonly offline: boolean
}

/** An HTTP answer or why there was none. */
const request = (url: string, headers: Record<string, string>) =>
  Effect.tryPromise({
    try: () => fetch(url, { headers, signal: AbortSignal.timeout(10_000) }).then(async (r) => ({ status: r.status, body: await r.text() })),
    catch: (e) => (e instanceof Error ? (e.cause instanceof Error ? e.cause.message : e.message) : String(e))
  })

/** `wss://host/path` → `https://host`: the REST API next to a vendor's streaming endpoint. */
const restOf = (streaming: string | undefined, fallback: string) => {
  if (streaming === undefined) return fallback
  try {
    const url = new URL(streaming)
    return `${url.protocol === "ws:" ? "http:" : "https:"}//${url.host}`
  } catch {
    return fallback
  }
}

interface KeyCheck {
  readonly name: string
  readonly service: string
  readonly variable: string
  readonly url: string
  readonly headers: (key: string) => Record<string, string>
  /** A key is optional (a local OpenAI-compatible server). */
  readonly keyOptional?: boolean
}

const keyCheck = (check: KeyCheck, key: string | undefined, offline: boolean): Effect.Effect<Check> => {
  if (key === undefined && check.keyOptional !== true) {
    return Effect.succeed(fail(check.name, `${check.service} is chosen but ${check.variable} is not set`, `set ${check.variable}`))
  }
  if (offline) return Effect.succeed(skip(check.name, `${check.service}: key not checked (--offline)`))
  return request(check.url, key === undefined ? {} : check.headers(key)).pipe(
    Effect.map((answer) =>
      answer.status >= 200 && answer.status < 300
        ? ok(check.name, `${check.service} accepts the key (${new URL(check.url).host})`)
        : answer.status === 401 || answer.status === 403
        ? fail(check.name, `${check.service} refuses the key (HTTP ${answer.status})`, `check ${check.variable}`)
        : warn(check.name, `${check.service} answered HTTP ${answer.status} to a key check`, "try again later; see the vendor's status page")
    ),
    Effect.catchAll((reason) =>
      Effect.succeed(fail(check.name, `${check.service} is not reachable at ${check.url} (${reason})`, "check the network and the service's address"))
    )
  )
}

/** Which LLM, STT and TTS are configured, and whether the vendors accept their keys. */
export const voiceServices = (voice: VoiceEnvironment): Effect.Effect<ReadonlyArray<Check>> => {
  const env = voice.env
  const openAiBase = (env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_URL).replace(/\/+$/, "")
  const openAi = (name: string, what: string): KeyCheck => ({
    name,
    service: `OpenAI-compatible ${what} at ${withoutCredentials(openAiBase)}`,
    variable: "OPENAI_API_KEY",
    url: `${openAiBase}/models`,
    headers: (key) => ({ authorization: `Bearer ${key}` }),
    keyOptional: env.OPENAI_BASE_URL !== undefined
  })
  const vendor = (name: string, choice: string): Option.Option<readonly [KeyCheck, string | undefined]> => {
    const provider = choice.split(":")[0]
    switch (provider) {
      case "openai":
        return Option.some([openAi(name, choice), env.OPENAI_API_KEY] as const)
      case "deepgram":
        return Option.some([{
          name,
          service: "Deepgram",
          variable: "DEEPGRAM_API_KEY",
          url: `${restOf(env.AGENTLINE_DEEPGRAM_URL, "https://api.deepgram.com")}/v1/projects`,
          headers: (key) => ({ authorization: `Token ${key}` })
        }, env.DEEPGRAM_API_KEY] as const)
      case "elevenlabs":
        return Option.some([{
          name,
          service: "ElevenLabs",
          variable: "ELEVENLABS_API_KEY",
          url: `${restOf(env.AGENTLINE_ELEVENLABS_URL, "https://api.elevenlabs.io")}/v1/user`,
          headers: (key) => ({ "xi-api-key": key })
        }, env.ELEVENLABS_API_KEY] as const)
      case "cartesia":
        return Option.some([{
          name,
          service: "Cartesia",
          variable: "CARTESIA_API_KEY",
          url: `${restOf(env.AGENTLINE_CARTESIA_URL, "https://api.cartesia.ai")}/voices?limit=1`,
          headers: (key) => ({ "x-api-key": key, "cartesia-version": "2024-11-13" })
        }, env.CARTESIA_API_KEY] as const)
      default:
        return Option.none()
    }
  }
  const one = (name: string, variable: string, choice: string | undefined, localWord: string): Effect.Effect<Check> => {
    if (choice === undefined) {
      return Effect.succeed(warn(
        name,
        "no language model is configured (AGENTLINE_LLM is not set): answered calls play the greeting and hang up",
        "set AGENTLINE_LLM=openai:<model> (with OPENAI_API_KEY, or OPENAI_BASE_URL for a compatible server)"
      ))
    }
    if (choice === "local") return Effect.succeed(ok(name, `${variable}=local (${localWord}, offline: no key)`))
    return Option.match(vendor(name, choice), {
      onNone: () => Effect.succeed(fail(name, `${variable}=${choice} is not a service this server knows`, "see docs/voice.md for the choices")),
      onSome: ([check, key]) => keyCheck({ ...check, service: `${variable}=${choice}: ${check.service}` }, key, voice.offline)
    })
  }
  return Effect.all([
    one("llm", "AGENTLINE_LLM", voice.llm, "no model"),
    one("stt", "AGENTLINE_STT", voice.stt, "pocketsphinx"),
    one("tts", "AGENTLINE_TTS", voice.tts, "espeak-ng")
  ])
}

// -------------------------------------------------------------------------------------- public URL

/** `AGENTLINE_PUBLIC_URL` from the server itself: HTTPS (carriers require it) and answering our health. */
export const publicUrl = (url: string, configured: boolean, offline: boolean): Effect.Effect<Check> => {
  const name = "public URL"
  if (!configured) {
    return Effect.succeed(fail(
      name,
      `AGENTLINE_PUBLIC_URL is not set (${url} is used): carriers cannot reach this server for callbacks and media`,
      "set AGENTLINE_PUBLIC_URL to the HTTPS address carriers reach (a reverse proxy or a tunnel, see docs/production.md)"
    ))
  }
  if (!url.startsWith("https://")) {
    return Effect.succeed(fail(
      name,
      `${url} is not HTTPS: carriers only call HTTPS webhooks and secure WebSockets`,
      "put the server behind a reverse proxy with a certificate (Caddy, nginx) and set AGENTLINE_PUBLIC_URL=https://... (docs/production.md)"
    ))
  }
  if (offline) return Effect.succeed(skip(name, `${url}: not checked (--offline)`))
  return request(`${url.replace(/\/+$/, "")}/api/v1/health`, {}).pipe(
    Effect.map((answer) => {
      let isOurs = false
      try {
        isOurs = answer.status === 200 && JSON.parse(answer.body).status === "ok"
      } catch {
        // not JSON: not this server
      }
      return isOurs
        ? ok(name, `${url} reaches this server over HTTPS`)
        : fail(name, `${url}/api/v1/health answered HTTP ${answer.status}, not this server's health`, "point the proxy or tunnel at this server's port")
    }),
    Effect.catchAll((reason) =>
      Effect.succeed(fail(
        name,
        `${url} is not reachable from this machine (${reason})`,
        "start the server (agentline serve), check the DNS name, the certificate and the reverse proxy or tunnel (docs/production.md)"
      ))
    )
  )
}

// -------------------------------------------------------------------------------------- telephony

/** Every stored telephony configuration: does its provider accept its credentials? */
export const telephony = (
  registry: TelephonyRegistry["Type"],
  configs: TelephonyConfigsRepo["Type"],
  box: SecretBox["Type"],
  offline: boolean
): Effect.Effect<ReadonlyArray<Check>> =>
  Effect.gen(function*() {
    const open = openConfiguration(registry, box)
    const checks: Array<Check> = []
    for (const provider of registry.all) {
      for (const stored of yield* configs.listByProvider(provider.name)) {
        const name = `telephony "${stored.name}" (${provider.name}, organization ${stored.organization_id})`
        if (provider.verifyCredentials === undefined) {
          checks.push(skip(name, `the ${provider.displayName} adapter cannot check credentials yet`))
          continue
        }
        if (offline) {
          checks.push(skip(name, "credentials not checked (--offline)"))
          continue
        }
        const opened = yield* open(stored).pipe(Effect.either)
        if (opened._tag === "Left") {
          checks.push(fail(name, `cannot be used: ${opened.left.message}`, "fix the configuration in the dashboard (Telephony)"))
          continue
        }
        const verdict = yield* opened.right.provider.verifyCredentials!(opened.right.config)
        checks.push(verdict.ok ? ok(name, verdict.message) : fail(name, verdict.message, "correct the credentials in the dashboard (Telephony) or through the API"))
      }
    }
    if (checks.length === 0) checks.push(skip("telephony", "no telephony configuration is stored yet"))
    return checks
  })

// ------------------------------------------------------------------------------------------- disk

const GIB = 1024 ** 3

/** Free space where recordings and uploads are stored (the data directory). */
export const disk = (dataDir: string): Check => {
  const name = "disk"
  try {
    NodeFs.mkdirSync(dataDir, { recursive: true })
    const stats = NodeFs.statfsSync(dataDir)
    const free = stats.bavail * stats.bsize
    const shown = `${(free / GIB).toFixed(1)} GiB free in ${NodePath.resolve(dataDir)}`
    if (free < 0.1 * GIB) return fail(name, `${shown}: recordings and uploads will fail`, "free space or move AGENTLINE_DATA_DIR to a larger disk")
    if (free < 1 * GIB) return warn(name, `${shown}: an hour of recordings takes about 100 MB`, "free space or move AGENTLINE_DATA_DIR to a larger disk")
    return ok(name, shown)
  } catch (e) {
    return fail(name, `cannot use ${dataDir} (${e instanceof Error ? e.message : String(e)})`, "set AGENTLINE_DATA_DIR to a writable directory")
  }
}
