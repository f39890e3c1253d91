/**
 * A campaign's contacts from its uploaded CSV, in two passes so that an import never holds the
 * database for long (on SQLite one connection serves every request):
 *
 * 1. **Check** the whole file, writing nothing: every row problem is collected (one 400 lists them
 *    all), duplicates within the file included, and reading stops at once on a structural problem or
 *    past `MAX_CONTACT_ROWS`. A file at fault is refused as fast as it can be parsed.
 * 2. **Insert** the checked file in batches of 500 rows, each its own statement, giving the event loop a turn
 *    between batches, so other requests' queries run in between. The campaign row comes first (the
 *    contacts reference it) with `total_rows` unset until the last batch; if anything fails on the way,
 *    the campaign and its contacts are removed again, and a campaign whose import did not finish (the
 *    process died) cannot be started.
 */
import type { CampaignId, OrganizationId } from "@agentline/api/Ids"
import { type Context, Effect, Stream } from "effect"
import type { CampaignsRepo } from "./CampaignsRepo.js"
import { CsvInvalid, describeProblems, makeProblems, readContacts } from "./CsvImport.js"

/** A macrotask turn (not a Clock sleep, which would stop under TestClock): pending I/O is served first. */
const yieldToEventLoop = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/** Rows between turns of the event loop while checking (about 10 ms of parsing and normalizing)... */
const CHECK_BATCH = 200
/** ...and rows per insert statement (one turn after each). */
const INSERT_BATCH = 500

/** Pass 1: how many contacts the file holds, or `CsvInvalid` saying everything wrong with it (a 400). */
export const checkContacts = <E>(
  bytes: Stream.Stream<Uint8Array, E>,
  options: { readonly requiredVariables: ReadonlyArray<string>; readonly maxRows?: number }
): Effect.Effect<number, E | CsvInvalid> =>
  Effect.gen(function*() {
    const problems = makeProblems()
    // Parsing and normalizing is CPU work: a turn of the event loop every few hundred rows.
    const rows = yield* readContacts(bytes, { ...options, problems, batchSize: CHECK_BATCH }).pipe(
      Stream.runFoldEffect(0, (count, batch) => Effect.as(yieldToEventLoop, count + batch.length)),
    )
    const problem = describeProblems(problems)
    if (problem !== undefined) return yield* new CsvInvalid({ message: problem })
    if (rows === 0) return yield* new CsvInvalid({ message: "CSV file must have a header row and at least one contact row" })
    return rows
  })

/**
 * Pass 2: inserts the checked file's contacts into `campaign` (just inserted, `total_rows` unset) and
 * records the count; on any failure or interruption the campaign is removed with what it got.
 */
export const insertContacts = <E>(
  repo: Context.Tag.Service<CampaignsRepo>,
  campaign: { readonly id: CampaignId; readonly organization_id: OrganizationId },
  bytes: Stream.Stream<Uint8Array, E>,
  options: { readonly requiredVariables: ReadonlyArray<string>; readonly now: string; readonly maxRows?: number }
): Effect.Effect<void, E | CsvInvalid> =>
  Effect.gen(function*() {
    const key = { organizationId: campaign.organization_id, campaignId: campaign.id }
    // The file was checked, so problems here mean it changed since (it cannot: uploads are immutable).
    const problems = makeProblems()
    let imported = 0
    yield* readContacts(bytes, { ...options, problems, batchSize: INSERT_BATCH }).pipe(
      Stream.runForEach((batch) =>
        repo.insertContacts({ ...key, rows: batch, now: options.now }).pipe(
          Effect.map((duplicates) => {
            for (const row of duplicates) problems.duplicates.add(row)
            imported += batch.length - duplicates.length
          }),
          Effect.zipLeft(yieldToEventLoop)
        )
      ),
    )
    const problem = describeProblems(problems)
    if (problem !== undefined) return yield* new CsvInvalid({ message: problem })
    yield* repo.setImported({ campaignId: campaign.id, contacts: imported })
  }).pipe(
    Effect.onExit((exit) =>
      exit._tag === "Success" ? Effect.void : repo.discard({ organizationId: campaign.organization_id, campaignId: campaign.id })
    )
  )
