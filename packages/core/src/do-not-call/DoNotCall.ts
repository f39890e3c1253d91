/**
 * The organization's do-not-call list: numbers never to be dialed. Numbers are normalized exactly as
 * campaign contacts' numbers are (`normalizeForCampaign`), so a listed number matches however a CSV
 * writes it. The dispatcher consults the list when it claims contacts (listed ones end `skipped`) and
 * single calls are refused; the voice runtime adds callers who ask not to be called again (`fromRun`).
 */
import type { AddDoNotCallRequest, ImportDoNotCallRequest } from "@agentline/api/do-not-call/DoNotCall"
import type { Principal } from "@agentline/api/Authentication"
import { Clock, Effect, Either, Option, Stream } from "effect"
import { CsvInvalid, describeProblems, makeProblems, readContacts } from "../campaigns/CsvImport.js"
import { Uploads } from "../uploads/Uploads.js"
import * as Permissions from "../organizations/Permissions.js"
import { normalizeForCampaign } from "../phone-numbers/PhoneAddress.js"
import { iso } from "../Time.js"
import { DoNotCallRepo } from "./DoNotCallRepo.js"
import { DoNotCallEntryNotFound, InvalidDoNotCallNumbers } from "./Errors.js"

/** Every number normalized, or every problem with its place (`loc`) in the request. */
export const normalizeAll = (
  numbers: ReadonlyArray<string>,
  countryCode: string | null,
  /** Where the i-th number is in the request, for the 422. */
  locOf: (index: number) => ReadonlyArray<string | number>
): Either.Either<ReadonlyArray<string>, InvalidDoNotCallNumbers> => {
  const normalized: Array<string> = []
  const issues: Array<{ loc: ReadonlyArray<string | number>; input: string; reason: string }> = []
  numbers.forEach((raw, i) => {
    const result = normalizeForCampaign(raw, countryCode ?? undefined)
    if (Either.isRight(result)) normalized.push(result.right)
    else issues.push({ loc: locOf(i), input: raw, reason: result.left })
  })
  return issues.length > 0 ? Either.left(new InvalidDoNotCallNumbers({ issues })) : Either.right([...new Set(normalized)])
}

/** The most numbers one import takes. */
export const MAX_IMPORT_ROWS = 1_000_000

export class DoNotCall extends Effect.Service<DoNotCall>()("@agentline/core/DoNotCall", {
  effect: Effect.gen(function*() {
    const repo = yield* DoNotCallRepo
    const uploads = yield* Uploads

    const add = Effect.fn("DoNotCall.add")(function*(principal: Principal, request: AddDoNotCallRequest) {
      const numbers = yield* normalizeAll(request.phone_numbers, request.country_code, (i) => ["body", "phone_numbers", i])
      const reason = request.reason === null || request.reason.trim() === "" ? null : request.reason.trim()
      const added = yield* repo.add(
        principal.organizationId,
        numbers.map((phone_number) => ({ phone_number, reason, source: "api" as const, run_id: null })),
        iso(yield* Clock.currentTimeMillis)
      )
      return { added, already_listed: numbers.length - added }
    })

    const normalizeOne = (phoneNumber: string, countryCode: string | undefined) =>
      Effect.map(normalizeAll([phoneNumber], countryCode ?? null, () => ["query", "phone_number"]), (n) => n[0]!)

    const check = Effect.fn("DoNotCall.check")(function*(principal: Principal, phoneNumber: string, countryCode?: string) {
      const number = yield* normalizeOne(phoneNumber, countryCode)
      const entry = yield* repo.find(principal.organizationId, number)
      return { phone_number: number, listed: Option.isSome(entry), entry: Option.getOrNull(entry) }
    })

    /** Calling someone who asked not to be called is the organization's decision: administrators only. */
    const remove = Effect.fn("DoNotCall.remove")(function*(principal: Principal, phoneNumber: string, countryCode?: string) {
      yield* Permissions.check(principal, "manageDoNotCall")
      const number = yield* normalizeOne(phoneNumber, countryCode)
      if (!(yield* repo.remove(principal.organizationId, number))) return yield* new DoNotCallEntryNotFound({ phoneNumber: number })
      return { success: true, message: `${number} removed from the do-not-call list` }
    })

    const list = Effect.fn("DoNotCall.list")(function*(principal: Principal, page: number, limit: number) {
      const { entries, total } = yield* repo.page(principal.organizationId, { offset: (page - 1) * limit, limit })
      return { entries, total_count: total, page, limit, total_pages: Math.ceil(total / limit) }
    })

    /** Whether a (normalized) number is listed in the organization. */
    const isListed = (organizationId: number, phoneNumber: string) => Effect.map(repo.find(organizationId, phoneNumber), Option.isSome)

    /** A caller asked during a call not to be called again: listed with the run as its source. */
    const fromRun = Effect.fn("DoNotCall.fromRun")(function*(organizationId: number, phoneNumber: string, runId: number, reason: string) {
      const normalized = normalizeForCampaign(phoneNumber)
      if (Either.isLeft(normalized)) return false
      const added = yield* repo.add(
        organizationId,
        [{ phone_number: normalized.right, reason, source: "run", run_id: runId }],
        iso(yield* Clock.currentTimeMillis)
      )
      return added > 0
    })

    /**
     * Lists every number of an uploaded CSV (a `phone_number` column, read and normalized as campaign
     * files are, other columns ignored). All or nothing: a file with an unreadable number is refused
     * whole, naming its rows; numbers repeated in the file are listed once.
     */
    const importCsv = Effect.fn("DoNotCall.importCsv")(function*(principal: Principal, request: ImportDoNotCallRequest) {
      const reason = request.reason === null || request.reason.trim() === "" ? null : request.reason.trim()
      const read = (problems: ReturnType<typeof makeProblems>) =>
        Effect.map(uploads.open(principal, request.file_key), (bytes) =>
          readContacts(bytes, { requiredVariables: [], problems, maxRows: MAX_IMPORT_ROWS, batchSize: 500 }))
      const checked = makeProblems()
      const rows = yield* Stream.runFold(yield* read(checked), 0, (n, batch) => n + batch.length)
      // Repeats are harmless on a do-not-call list (a campaign refuses them; this does not).
      const problem = describeProblems({ ...checked, duplicates: makeProblems().duplicates })
      if (problem !== undefined) return yield* new CsvInvalid({ message: problem })
      if (rows === 0) return yield* new CsvInvalid({ message: "The file has a header row but no numbers" })
      const now = iso(yield* Clock.currentTimeMillis)
      let added = 0
      yield* Stream.runForEach(yield* read(makeProblems()), (batch) =>
        Effect.map(
          repo.add(principal.organizationId, batch.map((row) => ({ phone_number: row.phone_number, reason, source: "api" as const, run_id: null })), now),
          (n) => {
            added += n
          }
        ))
      return { added, already_listed: rows - added }
    })

    return { add, check, remove, list, isListed, fromRun, importCsv } as const
  })
}) {}
