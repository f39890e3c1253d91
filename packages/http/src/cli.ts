/**
 * The `agentline` command line:
 *
 *   agentline serve                       start the HTTP server (migrates first)
 *   agentline migrate                     run the database migrations and exit
 *   agentline doctor [--offline]          check the setup (database, speech, vendors' keys, public URL,
 *                                         telephony credentials, disk); exit code 1 when a check fails
 *   agentline users create --email E --password P --organization O [--role admin|member]
 *   agentline api-keys create --email E [--name N]     prints the new key alone on the last line
 *   agentline organizations set-concurrency --organization O --limit N
 *   agentline demo                        run a 1,000-contact campaign on the simulator (see README);
 *                                         --provider twilio runs it through the fake Twilio, callbacks and media included;
 *                                         --conversations runs a few calls on the simulator whose callee talks with the agent
 *
 * Configuration comes from the environment (README, "Configuration").
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { parseArgs } from "node:util"
import * as Commands from "./Commands.js"

const usage = `Usage:
  agentline serve
  agentline migrate
  agentline doctor [--offline]
  agentline users create --email E --password P --organization O [--role admin|member]
  agentline api-keys create --email E [--name N]
  agentline organizations set-concurrency --organization O --limit N
  agentline demo [--contacts N] [--provider simulator|twilio]
  agentline demo --conversations [--contacts N]`

const { positionals, values } = parseArgs({
  allowPositionals: true,
  strict: false,
  options: {
    email: { type: "string" },
    password: { type: "string" },
    organization: { type: "string" },
    role: { type: "string" },
    name: { type: "string" },
    limit: { type: "string" },
    contacts: { type: "string" },
    provider: { type: "string" },
    conversations: { type: "boolean" },
    offline: { type: "boolean" },
    help: { type: "boolean", short: "h" }
  }
})

const command = positionals.join(" ")
const str = (key: keyof typeof values) => (typeof values[key] === "string" ? (values[key] as string) : undefined)

const program: Effect.Effect<unknown, unknown> = (() => {
  if (values.help || command === "" || command === "help") return Effect.sync(() => console.log(usage))
  switch (command) {
    case "serve":
      return Layer.launch(Commands.serveLayer)
    case "migrate":
      return Commands.migrate
    case "doctor":
      return Commands.doctor({ offline: values.offline === true })
    case "users create":
      return Commands.createUser({
        email: str("email"),
        password: str("password"),
        organization: str("organization"),
        role: str("role")
      })
    case "api-keys create":
      return Commands.createApiKey({ email: str("email"), name: str("name") })
    case "organizations set-concurrency":
      return Commands.setConcurrency({ organization: str("organization"), limit: str("limit") })
    case "demo":
      return Commands.demo({ contacts: str("contacts"), provider: str("provider"), conversations: values.conversations === true })
    default:
      return Effect.fail(new Commands.UsageError({ message: `Unknown command '${command}'.\n${usage}` }))
  }
})()

NodeRuntime.runMain(
  program.pipe(
    Effect.catchIf(
      (e): e is Commands.UsageError => e instanceof Commands.UsageError,
      (e) =>
        Effect.sync(() => {
          console.error(e.message)
          process.exitCode = 2
        })
    )
  ),
  { disableErrorReporting: false }
)
