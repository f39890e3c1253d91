/** The command line's commands as Effect programs (the parsing lives in cli.ts). */
import { ApiKeys } from "@agentline/core/api-keys/ApiKeys"
import { acting } from "@agentline/core/organizations/Principal"
import { OrganizationsRepo } from "@agentline/core/organizations/OrganizationsRepo"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { MAX_CONCURRENT_CALL_LIMIT } from "@agentline/api/organizations/Organization"
import { Role } from "@agentline/api/users/User"
import { Users } from "@agentline/core/users/Users"
import { Database, Migrations } from "@agentline/sql"
import { Config, Data, Effect, Layer, Option, Schema } from "effect"
import { SecretBox } from "@agentline/core/crypto/SecretBox"
import { TelephonyConfigsRepo } from "@agentline/core/telephony/TelephonyConfigsRepo"
import { TelephonyRegistry } from "@agentline/core/telephony/TelephonyRegistry"
import { Repositories } from "@agentline/sql"
import * as Doctor from "./doctor/Doctor.js"
import * as Demo from "./Demo.js"
import * as DemoTwilio from "./DemoTwilio.js"
import * as Server from "./Server.js"
import { ServerConfig, settingsConfig, VERSION } from "./ServerConfig.js"
import * as Logging from "./observability/Logging.js"
import * as Metrics from "./observability/Metrics.js"
import * as Tracing from "./observability/Tracing.js"

export class UsageError extends Data.TaggedError("UsageError")<{ readonly message: string }> {}

const required = (name: string, value: string | undefined) =>
  value === undefined || value.trim() === ""
    ? Effect.fail(new UsageError({ message: `--${name} is required` }))
    : Effect.succeed(value.trim())

const DatabaseLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const settings = yield* Database.settingsConfig
    yield* Effect.logInfo(`Database: ${Database.describe(settings)}`)
    return Database.layerFromSettings(settings)
  })
).pipe(Layer.orDie)

/** Services over a migrated database, for the administrative commands. */
const AdminLive = Server.AdminServicesLive.pipe(
  Layer.provide(Server.MigrationsLive),
  Layer.provideMerge(DatabaseLive)
)

/**
 * Traces (OTLP, when `OTEL_EXPORTER_OTLP_ENDPOINT` says where) and the log format
 * (`AGENTLINE_LOG_FORMAT`): provided first, so everything after logs and traces through them.
 */
export const ObservabilityLive = Logging.layerConfig.pipe(Layer.provideMerge(Tracing.layerConfig(VERSION)))

export const serveLayer = Layer.unwrapEffect(
  Effect.gen(function*() {
    const settings = yield* settingsConfig
    const metrics = yield* Metrics.settingsConfig
    return Layer.mergeAll(
      Server.serve({ port: settings.port, host: settings.host, metrics }),
      Metrics.listenerLayer(metrics)
    ).pipe(
      Layer.provide(Metrics.PrometheusMetrics.Default),
      Layer.provide(ServerConfig.layer(settings)),
      Layer.provide(DatabaseLive)
    )
  })
).pipe(Layer.provide(ObservabilityLive))

export const migrate = Effect.gen(function*() {
  const applied = yield* Migrations.run
  console.log(applied.length === 0 ? "Database is up to date." : `Applied: ${applied.map(([id, name]) => `${id}_${name}`).join(", ")}`)
}).pipe(Effect.provide(DatabaseLive))

export const createUser = (args: {
  email: string | undefined
  password: string | undefined
  organization: string | undefined
  role: string | undefined
}) =>
  Effect.gen(function*() {
    const email = yield* required("email", args.email)
    const password = yield* required("password", args.password)
    const organization = yield* required("organization", args.organization)
    const role = yield* Schema.decodeUnknown(Role)(args.role ?? "admin").pipe(
      Effect.mapError(() => new UsageError({ message: "--role must be admin or member" }))
    )
    if (password.length < 8) return yield* new UsageError({ message: "--password must be at least 8 characters" })
    const users = yield* Users
    const user = yield* users.create({ email, password, role, organization: { name: organization } })
    console.log(`Created ${user.role} ${user.email} (id ${user.id}) in organization '${organization}' (id ${user.organization_id}).`)
    console.log("The password must be changed at first login (POST /api/v1/auth/change-password).")
  }).pipe(Effect.provide(AdminLive))

export const createApiKey = (args: { email: string | undefined; name: string | undefined }) =>
  Effect.gen(function*() {
    const email = (yield* required("email", args.email)).toLowerCase()
    const users = yield* Users
    const user = yield* users.findByEmail(email)
    if (Option.isNone(user)) return yield* new UsageError({ message: `No user with email '${email}'` })
    const keys = yield* ApiKeys
    const created = yield* keys.create(acting(user.value), args.name?.trim() || "cli")
    console.log(`Created API key '${created.name}' (id ${created.id}) for organization ${user.value.organization_id}.`)
    console.log("It is shown only once; store it now:")
    console.log(created.api_key)
  }).pipe(Effect.provide(AdminLive))

export const setConcurrency = (args: { organization: string | undefined; limit: string | undefined }) =>
  Effect.gen(function*() {
    const name = yield* required("organization", args.organization)
    const limit = Number(yield* required("limit", args.limit))
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CONCURRENT_CALL_LIMIT) {
      return yield* new UsageError({ message: `--limit must be an integer between 1 and ${MAX_CONCURRENT_CALL_LIMIT}` })
    }
    const org = yield* (yield* OrganizationsRepo).findByName(name)
    if (Option.isNone(org)) return yield* new UsageError({ message: `No organization named '${name}'` })
    const updated = yield* (yield* Organizations).setConcurrentCallLimit(org.value.id, limit)
    console.log(`Organization '${updated.name}' may now have ${updated.concurrent_call_limit} calls in progress at once.`)
  }).pipe(Effect.provide(AdminLive))

/** The full application in this process (no HTTP server): what the demo and the benchmark drive. */
export const AppLive = Layer.unwrapEffect(
  Effect.gen(function*() {
    const settings = yield* settingsConfig
    return Server.ServicesLive.pipe(
      Layer.provide(Server.MigrationsLive),
      Layer.provideMerge(DatabaseLive),
      Layer.provideMerge(ServerConfig.layer(settings))
    )
  })
)

export const demo = (args: { contacts: string | undefined; provider: string | undefined; conversations: boolean }) =>
  Effect.gen(function*() {
    if (args.conversations) {
      const contacts = args.contacts === undefined ? 3 : Number(args.contacts)
      if (!Number.isInteger(contacts) || contacts < 1 || contacts > 50) {
        return yield* new UsageError({ message: "--contacts must be an integer between 1 and 50 with --conversations" })
      }
      // Loaded on demand: it brings the OpenAI adapter and its fake, which the server itself does not need.
      const DemoConversations = yield* Effect.promise(() => import("./DemoConversations.js"))
      return yield* DemoConversations.run({ contacts, settings: yield* settingsConfig, database: DatabaseLive })
    }
    const contacts = args.contacts === undefined ? 1000 : Number(args.contacts)
    if (!Number.isInteger(contacts) || contacts < 1 || contacts > 100_000) {
      return yield* new UsageError({ message: "--contacts must be an integer between 1 and 100000" })
    }
    const provider = args.provider ?? "simulator"
    if (provider === "simulator") return yield* Demo.run({ contacts }).pipe(Effect.provide(AppLive))
    if (provider === "twilio") return yield* DemoTwilio.run({ contacts, settings: yield* settingsConfig, database: DatabaseLive })
    return yield* new UsageError({ message: "--provider must be simulator or twilio" })
  })

/**
 * `agentline doctor [--offline]`: one line per check, then a summary; exit code 1 when a check failed
 * (`doctor/Doctor.ts` says what is checked). Prints as it goes: a slow check shows where it is.
 */
export const doctor = (args: { readonly offline: boolean }) =>
  Effect.gen(function*() {
    const results: Array<Doctor.Check> = []
    const report = (checks: ReadonlyArray<Doctor.Check>) =>
      Effect.sync(() => {
        for (const check of checks) {
          results.push(check)
          console.log(Doctor.render(check))
        }
      })
    const settings = yield* settingsConfig
    const databaseSettings = yield* Database.settingsConfig
    const publicUrlSet = Option.isSome(yield* Config.option(Config.string("AGENTLINE_PUBLIC_URL")))
    const env = process.env
    const voice = {
      llm: env.AGENTLINE_LLM,
      stt: env.AGENTLINE_STT ?? "local",
      tts: env.AGENTLINE_TTS ?? "local",
      env,
      offline: args.offline
    }

    // The database, and what needs it (the stored telephony configurations).
    const description = Database.describe(databaseSettings)
    yield* Effect.scoped(Effect.gen(function*() {
      const built = yield* Layer.build(Database.layerFromSettings(databaseSettings)).pipe(Effect.either)
      if (built._tag === "Left") {
        return yield* report([{
          name: "database",
          status: "fail",
          message: `${description} is not reachable (${built.left instanceof Error ? built.left.message : String(built.left)})`,
          advice: "check DATABASE_URL and that the database server runs and accepts this machine"
        }, { name: "telephony", status: "skip", message: "not checked: the database is unreachable" }])
      }
      const checks = yield* Doctor.database(description).pipe(Effect.provide(built.right))
      yield* report(checks)
      if (checks.some((c) => c.status !== "ok")) {
        return yield* report([{ name: "telephony", status: "skip", message: "not checked: the database is not ready" }])
      }
      const telephony = yield* Effect.gen(function*() {
        return yield* Doctor.telephony(yield* TelephonyRegistry, yield* TelephonyConfigsRepo, yield* SecretBox, args.offline)
      }).pipe(
        Effect.provide(Layer.mergeAll(Repositories.layer, Server.InfrastructureLive).pipe(
          Layer.provide(ServerConfig.layer(settings)),
          Layer.provide(Layer.succeedContext(built.right))
        ))
      )
      yield* report(telephony)
    }))
    yield* report(yield* Doctor.speech(voice))
    yield* report(yield* Doctor.voiceServices(voice))
    yield* report([yield* Doctor.publicUrl(settings.publicUrl, publicUrlSet, args.offline)])
    yield* report([Doctor.disk(settings.dataDir)])

    const failed = results.filter((c) => c.status === "fail").length
    const warned = results.filter((c) => c.status === "warn").length
    console.log(failed === 0
      ? `All checks passed${warned > 0 ? ` (${warned} warning${warned === 1 ? "" : "s"})` : ""}.`
      : `${failed} check${failed === 1 ? "" : "s"} failed${warned > 0 ? `, ${warned} warning${warned === 1 ? "" : "s"}` : ""}.`)
    process.exitCode = Doctor.exitCode(results)
  })
