/**
 * The parts of Cloudonix's REST API the adapter uses (JSON, `Authorization: Bearer <domain API key>`):
 *
 * - `POST /calls/{domain}/application` places a call that runs the CXML given with it; Cloudonix
 *   answers 200 with the session `token` (the call's id);
 * - `GET` / `DELETE /customers/self/domains/{domain}/sessions/{token}` look a call up and hang it up;
 * - `PATCH /customers/self/domains/{domain}/applications/{name}` points the voice application at a URL;
 * - `GET /customers/self/domains/{domain}/dnids` lists the domain's numbers, `POST .../applications/
 *   {name}/dnids` attaches one to the application, `DELETE .../dnids/{id}` detaches it.
 *
 * The session and DNID shapes follow Cloudonix's data model pages ("Session", "DNID"); what the adapter
 * reads of them is decoded, the rest ignored.
 *
 * The base URL comes from `AGENTLINE_CLOUDONIX_API_URL` (default `https://api.cloudonix.io`), never from
 * an organization's configuration. Failures become `TelephonyError`s with Cloudonix's message but never
 * the API key; 429 and 5xx (and a Cloudonix that cannot be reached) are retryable, other refusals not.
 */
import * as ProviderRest from "@agentline/core/telephony/ProviderRest"
import type { TelephonyError } from "@agentline/core/telephony/TelephonyProvider"
import { HttpClientRequest } from "@effect/platform"
import { Config, Effect, Either, Schema } from "effect"

export const DEFAULT_API_URL = "https://api.cloudonix.io"

export const apiUrlConfig = Config.string("AGENTLINE_CLOUDONIX_API_URL").pipe(Config.withDefault(DEFAULT_API_URL))

export type CloudonixFailure = ProviderRest.ProviderFailure

/** Cloudonix's error bodies name the problem in `message` (or `error`); anything else is shown by status. */
const ErrorBody = Schema.Struct({
  message: Schema.optional(Schema.NullOr(Schema.String)),
  error: Schema.optional(Schema.NullOr(Schema.String))
})

const api: ProviderRest.ProviderApi = {
  provider: "cloudonix",
  displayName: "Cloudonix",
  failureMessage: (body) => {
    const parsed = Schema.decodeUnknownEither(ErrorBody)(body)
    return Either.isRight(parsed) ? parsed.right.message ?? parsed.right.error ?? undefined : undefined
  }
}

export const failure = (f: CloudonixFailure, what: string) => ProviderRest.refused(api, f, what)

export const PlacedCall = Schema.Struct({ token: Schema.String })

/**
 * A session as the adapter reads it ("Session" data model): its state, and when it was answered and
 * disconnected (epoch milliseconds, or the ISO-8601 twins).
 */
export const Session = Schema.Struct({
  token: Schema.String,
  status: Schema.String,
  callAnswerTime: Schema.optional(Schema.NullOr(Schema.Number)),
  callEndTime: Schema.optional(Schema.NullOr(Schema.Number)),
  answerTime: Schema.optional(Schema.NullOr(Schema.String)),
  endTime: Schema.optional(Schema.NullOr(Schema.String))
})
export type Session = typeof Session.Type

/**
 * The voice application a DNID activates. The "DNID" data model gives it as an object (the Voice
 * Application: `name`, ...); a bare name or id is read too.
 */
const DnidApplication = Schema.Union(
  Schema.Struct({ id: Schema.optional(Schema.NullOr(Schema.Number)), name: Schema.optional(Schema.NullOr(Schema.String)) }),
  Schema.String,
  Schema.Number
)

const flag = Schema.optional(Schema.NullOr(Schema.Boolean))

/**
 * A DNID ("DNID" data model): its `id`, the `source` expression and the flags that say how `source`
 * matches (`prefix`, `expression`, `asteriskCompatible`; all false: exactly that number), whether it is
 * `active`, and the `application` it activates (`voice-application` in Cloudonix's OpenAPI document).
 */
export const Dnid = Schema.Struct({
  id: Schema.Number,
  source: Schema.optional(Schema.NullOr(Schema.String)),
  prefix: flag,
  expression: flag,
  asteriskCompatible: flag,
  active: flag,
  application: Schema.optional(Schema.NullOr(DnidApplication)),
  "voice-application": Schema.optional(Schema.NullOr(DnidApplication))
})
export type Dnid = typeof Dnid.Type
export const Dnids = Schema.Array(Dnid)

const applicationOf = (dnid: Dnid) => dnid.application ?? dnid["voice-application"]

/** The name of the voice application `dnid` activates (undefined: none, or known only by id). */
export const applicationName = (dnid: Dnid): string | undefined => {
  const application = applicationOf(dnid)
  if (typeof application === "string") return application
  return typeof application === "object" && application !== null ? application.name ?? undefined : undefined
}

/** How to name the application of `dnid` to a person: its name, else its id, else `(none)`. */
export const applicationLabel = (dnid: Dnid): string => {
  const application = applicationOf(dnid)
  const id = typeof application === "number" ? application : typeof application === "object" && application !== null ? application.id : undefined
  return applicationName(dnid) ?? (id != null ? `#${id}` : "(none)")
}

/** One number written with or without its leading `+` (Cloudonix writes numbers both ways). */
const sameNumber = (a: string, b: string) => a === b || a.replace(/^\+/, "") === b.replace(/^\+/, "")

/** The DNID that is exactly `address` (not a prefix, glob or Asterisk pattern that happens to match it). */
export const dnidOf = (dnids: ReadonlyArray<Dnid>, address: string): Dnid | undefined =>
  dnids.find((d) =>
    d.source != null && d.prefix !== true && d.expression !== true && d.asteriskCompatible !== true && sameNumber(d.source, address)
  )

export interface Rest {
  /** The body decoded by `schema` on a 2xx (`undefined` for an empty one); `Left` with Cloudonix's refusal otherwise. */
  readonly send: <A, I>(input: {
    readonly apiKey: string
    readonly method: "GET" | "POST" | "PATCH" | "DELETE"
    readonly path: string
    readonly body?: Record<string, unknown>
    readonly schema: Schema.Schema<A, I>
    readonly what: string
  }) => Effect.Effect<Either.Either<A, CloudonixFailure>, TelephonyError>
}

export const make = (options: { readonly apiUrl?: string | undefined } = {}): Rest => ({
  send: ({ apiKey, body, method, path, schema, what }) =>
    Effect.gen(function*() {
      const base = (options.apiUrl ?? (yield* apiUrlConfig.pipe(Effect.orDie))).replace(/\/+$/, "")
      let request = HttpClientRequest.make(method)(`${base}${path}`).pipe(
        HttpClientRequest.bearerToken(apiKey),
        HttpClientRequest.acceptJson
      )
      if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
      return yield* ProviderRest.sendDecoded(api, request, schema, what)
    })
})
