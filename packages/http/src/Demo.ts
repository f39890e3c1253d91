/**
 * `npm run demo`: the main job, shown. On the embedded default (SQLite in the data directory, the
 * simulator provider) it creates an organization, an agent, a simulator configuration with a mix of
 * outcomes and a CSV of 1,000 contacts, runs the campaign with a live progress bar, and ends with a
 * summary table. Calls are short (1 s ringing, 2 s talking) so it finishes in well under a minute.
 * `--provider twilio` runs the same campaign through the fake Twilio instead (`DemoTwilio.ts`).
 */
import { Campaigns } from "@agentline/core/campaigns/Campaigns"
import { Organizations } from "@agentline/core/organizations/Organizations"
import { acting } from "@agentline/core/organizations/Principal"
import { PhoneNumbers } from "@agentline/core/phone-numbers/PhoneNumbers"
import { TelephonyConfigs } from "@agentline/core/telephony/TelephonyConfigs"
import { Uploads } from "@agentline/core/uploads/Uploads"
import { Users } from "@agentline/core/users/Users"
import { Workflows } from "@agentline/core/workflows/Workflows"
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { CreateCampaignRequest } from "@agentline/api/campaigns/Campaign"
import * as Net from "node:net"

export const GROUPS = [
  { prefix: "+1415555", share: 0.6, outcomes: ["completed"], label: "answers" },
  { prefix: "+1415556", share: 0.1, outcomes: ["busy", "completed"], label: "busy, then answers" },
  { prefix: "+1415557", share: 0.1, outcomes: ["no_answer"], label: "never answers" },
  { prefix: "+1415558", share: 0.1, outcomes: ["voicemail", "completed"], label: "voicemail, then answers" },
  { prefix: "+1415559", share: 0.05, outcomes: ["busy"], label: "always busy" },
  { prefix: "+1415554", share: 0.05, outcomes: ["failed"], label: "carrier failure" }
] as const

/** The demo's contacts: each number with the group (behaviour) it belongs to. */
export const contactsFor = (contacts: number) => {
  const out: Array<{ readonly number: string; readonly group: (typeof GROUPS)[number] }> = []
  for (const group of GROUPS) {
    const count = Math.round(contacts * group.share)
    for (let i = 0; i < count && out.length < contacts; i++) out.push({ number: `${group.prefix}${String(i).padStart(4, "0")}`, group })
  }
  return out
}

const csvFor = (contacts: number) =>
  ["phone_number,first_name,timezone", ...contactsFor(contacts).map((c, n) => `${c.number},Contact ${n},`)].join("\n") + "\n"

/** The simulator configuration the demo calls through by default: the groups as rules. */
export const simulatorTelephony: Telephony = {
  name: "Demo simulator",
  config: {
    provider: "simulator",
    ring_seconds: 1,
    talk_seconds: 2,
    default_outcome: "completed",
    rules: GROUPS.map((g) => ({ match: "prefix", pattern: g.prefix, outcomes: [...g.outcomes] }))
  }
}

/** The configuration the demo's campaign calls through, its caller id, and what to print at the end. */
export interface Telephony {
  readonly name: string
  readonly config: { readonly provider: string } & Record<string, unknown>
  readonly callerId?: string
  readonly summary?: Effect.Effect<void>
}

interface Snapshot {
  readonly state: string
  readonly total: number
  readonly processed: number
  readonly executed: number
  readonly inProgress: number
  readonly retriesPending: number
  readonly outcomes: Record<string, number>
}

const snapshot = (campaignId: number, now: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [campaign] = yield* sql`SELECT state, total_rows, processed_rows, executed_count FROM campaigns WHERE id = ${campaignId}`
    const [active] = yield* sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts WHERE campaign_id = ${campaignId} AND state IN ('claimed', 'dialing')`
    const [retries] = yield* sql`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM contacts
      WHERE campaign_id = ${campaignId} AND state = 'queued' AND next_attempt_at IS NOT NULL AND next_attempt_at > ${now}`
    const outcomes = yield* sql`SELECT outcome, CAST(COUNT(*) AS INTEGER) AS n FROM call_attempts
      WHERE campaign_id = ${campaignId} AND state = 'ended' GROUP BY outcome`
    return {
      state: String(campaign!.state),
      total: Number(campaign!.total_rows ?? 0),
      processed: Number(campaign!.processed_rows),
      executed: Number(campaign!.executed_count),
      inProgress: Number(active!.n),
      retriesPending: Number(retries!.n),
      outcomes: Object.fromEntries(outcomes.map((o) => [o.outcome, Number(o.n)]))
    } satisfies Snapshot
  }).pipe(Effect.orDie)

const bar = (s: Snapshot, width = 30) => {
  const done = s.total === 0 ? 0 : s.processed / s.total
  const filled = Math.round(done * width)
  const o = s.outcomes
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${(done * 100).toFixed(0).padStart(3)}% ` +
    `dialed ${s.executed} | in progress ${s.inProgress} | completed ${o.completed ?? 0} | busy ${o.busy ?? 0} | ` +
    `no answer ${o.no_answer ?? 0} | voicemail ${o.voicemail ?? 0} | failed ${o.failed ?? 0} | retries pending ${s.retriesPending}`
}

/** The password of every demo organization's administrator (printed with its email; a demo is not production). */
export const DEMO_PASSWORD = "demo-password"

/** What the demo prints so its organization can be looked at in the dashboard afterwards. */
export const loginLine = (email: string): string =>
  `To look at it in the dashboard: start the server on the same data (npm start), open its address ` +
  `(http://localhost:8000 by default) and log in as ${email} with the password ${DEMO_PASSWORD}.`

/**
 * A new organization named `<prefix>-<time>` with its administrator, allowed `limit` calls at once;
 * prints how to log in as that administrator.
 */
export const demoOrganization = (prefix: string, limit: number) =>
  Effect.gen(function*() {
    const name = `${prefix}-${new Date().toISOString().replace(/[:.]/g, "-")}`
    const email = `demo@${name}.local`
    const admin = yield* (yield* Users).create({
      email,
      password: DEMO_PASSWORD,
      role: "admin",
      organization: { name },
      mustChangePassword: false
    })
    const principal = acting(admin)
    yield* (yield* Organizations).setConcurrentCallLimit(principal.organizationId, limit)
    console.log(loginLine(email))
    return { name, principal, email }
  })

/** A loopback port nothing listens on now: where a demo serves the API for its fakes to call back. */
export const freePort = Effect.async<number>((resume) => {
  const probe = Net.createServer()
  probe.listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as Net.AddressInfo
    probe.close(() => resume(Effect.succeed(port)))
  })
})

export const run = (options: { readonly contacts: number; readonly telephony?: Telephony }) =>
  Effect.gen(function*() {
    const started = Date.now()
    const { email, name, principal } = yield* demoOrganization("demo", 100)
    const telephony = options.telephony ?? simulatorTelephony
    const configuration = yield* (yield* TelephonyConfigs).create(principal, {
      name: telephony.name,
      is_default_outbound: true,
      config: telephony.config
    })
    if (telephony.callerId !== undefined) {
      yield* (yield* PhoneNumbers).create(principal, configuration.id, {
        address: telephony.callerId,
        is_active: true,
        is_default_caller_id: true,
        extra_metadata: {}
      })
    }
    const agent = yield* (yield* Workflows).create(principal, {
      name: "Demo agent",
      workflow_definition: {
        nodes: [
          { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet {{first_name}} warmly" } },
          { id: "end", type: "endCall", position: { x: 0, y: 100 }, data: { name: "End", prompt: "Say goodbye" } }
        ],
        edges: [{ id: "e1", source: "start", target: "end", data: { label: "finish", condition: "The caller is done" } }]
      }
    })
    const fileKey = yield* (yield* Uploads).store(principal, "demo.csv", new TextEncoder().encode(csvFor(options.contacts)))
    const campaigns = yield* Campaigns
    // The request as a client sends it, decoded as the API decodes it (defaults filled in).
    const campaign = yield* campaigns.create(principal, yield* Schema.decodeUnknown(CreateCampaignRequest)({
      name: "Demo campaign",
      workflow_id: agent.id,
      source_type: "csv",
      source_id: fileKey,
      max_concurrency: 100,
      retry_config: { max_retries: 2, retry_delay_seconds: 3 }
    }).pipe(Effect.orDie))
    console.log(`Organization '${name}', agent ${agent.id}, campaign ${campaign.id}: ${campaign.total_rows} contacts imported.`)
    yield* campaigns.start(principal, campaign.id)
    const tty = process.stdout.isTTY === true
    let last: Snapshot
    let lastPrinted = 0
    while (true) {
      last = yield* snapshot(campaign.id, new Date().toISOString())
      if (tty) process.stdout.write(`\r${bar(last)}`)
      else if (Date.now() - lastPrinted > 2000) {
        console.log(bar(last))
        lastPrinted = Date.now()
      }
      if (["completed", "failed", "canceled", "paused"].includes(last.state)) break
      yield* Effect.sleep("200 millis")
    }
    if (tty) process.stdout.write("\n")
    else console.log(bar(yield* snapshot(campaign.id, new Date().toISOString())))
    const final = yield* campaigns.get(principal, campaign.id)
    const sql = yield* SqlClient.SqlClient
    const contacts = yield* sql`SELECT state, last_outcome, CAST(COUNT(*) AS INTEGER) AS n FROM contacts
      WHERE campaign_id = ${campaign.id} GROUP BY state, last_outcome ORDER BY state, last_outcome`
    console.log(`\nCampaign ${final.id} ${final.state} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
    console.table(contacts.map((c) => ({ contact_state: c.state, last_outcome: c.last_outcome, contacts: Number(c.n) })))
    console.table([{
      total_rows: final.total_rows,
      processed_rows: final.processed_rows,
      failed_rows: final.failed_rows,
      executed_count: final.executed_count,
      total_queued_count: final.total_queued_count
    }])
    console.table(Object.entries(last.outcomes).map(([outcome, attempts]) => ({ outcome, attempts })))
    if (telephony.summary !== undefined) yield* telephony.summary
    // Again at the end: the progress and the tables pushed the first one out of sight.
    console.log(`\n${loginLine(email)}`)
  })
