/**
 * Cloudonix: configuration and the calling adapter. Cloudonix speaks Twilio's dialect (CXML is TwiML,
 * media streams are Twilio Media Streams) with a REST API of its own:
 *
 * - calls: `POST /calls/{domain}/application` with the callee (`destination`), the caller id (required)
 *   and the CXML to run (a `<Redirect>` to our answer route: see `Cxml.ts`), and `callback` for status
 *   callbacks; the session `token` it answers is the call's id. Hang up and look up by session.
 * - webhooks: Cloudonix signs nothing; it sends the domain's API key in `x-cx-apikey`, which is compared
 *   (in constant time) with the configuration's key. Voice application requests are JSON (form-encoded
 *   ones are read too), session notifications are JSON session objects with Cloudonix's session states
 *   (see `Callbacks.ts`); answers are CXML.
 * - media: Twilio Media Streams (JSON, base64 µ-law 8 kHz), Twilio's codec reused.
 * - inbound: a voice application (`application_name`) holds the numbers (DNIDs) that reach it and one
 *   URL for all of them. Binding a number points the application at this server and attaches the
 *   number's DNID to it; unbinding detaches the DNID (the application's URL serves the others). Only a
 *   DNID that is exactly the number counts as the number's (not a prefix or pattern that matches it).
 *
 * The inbound routing key's account id is the domain (webhooks name it in `Domain` / `AccountSid`).
 * There is no answering-machine detection: Cloudonix documents none that this adapter could use.
 */
import * as ProviderRest from "@agentline/core/telephony/ProviderRest"
import { optionalText, present, providerConfig, requiredText, secretField, textField } from "@agentline/core/telephony/ProviderConfig"
import {
  type InboundCall,
  type PlaceCall,
  type ProviderField,
  type ProviderSync,
  TelephonyError,
  type TelephonyProvider,
  type WebhookRequest
} from "@agentline/core/telephony/TelephonyProvider"
import { TwilioMediaStream } from "@agentline/telephony-twilio"
import * as Crypto from "node:crypto"
import { Clock, Effect, Either, Schema } from "effect"
import * as Callbacks from "./Callbacks.js"
import * as Cxml from "./Cxml.js"
import * as Requests from "./Requests.js"
import * as Rest from "./Rest.js"

export const CloudonixConfig = providerConfig({
  bearer_token: requiredText("bearer_token"),
  domain_id: requiredText("domain_id"),
  application_name: optionalText
})
export type CloudonixConfig = typeof CloudonixConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("bearer_token", "API key", true, "Cloudonix domain API key (bearer token)"),
  textField("domain_id", "Domain", true, "The Cloudonix domain name; a bare name means <name>.cloudonix.net"),
  textField(
    "application_name",
    "Application name",
    false,
    "The Cloudonix voice application that receives incoming calls; needed to bind numbers to an inbound agent"
  )
]

/** Cloudonix domains are case-insensitive, and bare names live under cloudonix.net. */
export const cloudonixDomain = (domain: string | undefined): string | undefined => {
  const d = (domain ?? "").trim().toLowerCase()
  return d === "" ? undefined : d.includes(".") ? d : `${d}.cloudonix.net`
}


const refused = (message: string) => new TelephonyError({ provider: "cloudonix", message, retryable: false })

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value
  return undefined
}

const equalInConstantTime = (a: string, b: string): boolean => {
  const left = Crypto.createHash("sha256").update(a).digest()
  const right = Crypto.createHash("sha256").update(b).digest()
  return Crypto.timingSafeEqual(left, right) && a.length === b.length
}

/** Whether a webhook carries the domain's API key, as Cloudonix sends it (`x-cx-apikey`). */
export const isAuthentic = (apiKey: string, request: WebhookRequest): boolean => {
  const sent = header(request, "x-cx-apikey")
  return sent !== undefined && sent !== "" && equalInConstantTime(sent, apiKey)
}

const domainPath = (config: CloudonixConfig) => `/customers/self/domains/${encodeURIComponent(cloudonixDomain(config.domain_id) ?? "")}`

export type CloudonixProvider = TelephonyProvider<CloudonixConfig> & {
  readonly calls: NonNullable<TelephonyProvider<CloudonixConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<CloudonixConfig>["webhooks"]>
}

/** The adapter; `apiUrl` overrides `AGENTLINE_CLOUDONIX_API_URL` (tests, private deployments). */
export const make = (options: { readonly apiUrl?: string | undefined } = {}): CloudonixProvider => {
  const rest = Rest.make(options)

  const place = (input: PlaceCall<CloudonixConfig>) =>
    Effect.gen(function*() {
      if (input.from === undefined) {
        return yield* refused("Cloudonix needs a caller id: add a phone number of this Cloudonix domain to the configuration")
      }
      const domain = cloudonixDomain(input.config.domain_id) ?? ""
      const placed = yield* rest.send({
        apiKey: input.config.bearer_token,
        method: "POST",
        path: `/calls/${encodeURIComponent(domain)}/application`,
        body: {
          destination: input.to,
          "caller-id": input.from,
          cxml: Cxml.redirectTo(input.answerUrl),
          callback: input.callbackUrl
        },
        schema: Rest.PlacedCall,
        what: "place the call"
      })
      if (Either.isLeft(placed)) return yield* Rest.failure(placed.left, "place the call")
      return { providerCallId: placed.right.token }
    })

  const session = (config: CloudonixConfig, token: string) =>
    rest.send({
      apiKey: config.bearer_token,
      method: "GET",
      path: `${domainPath(config)}/sessions/${encodeURIComponent(token)}`,
      schema: Rest.Session,
      what: "look the call up"
    })

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: CloudonixConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(
      session(config, providerCallId),
      (f) => Rest.failure(f, "look the call up"),
      (found) => Callbacks.sessionStatus(found)
    )

  /** Deleting a session ends the call (canceled while ringing, completed once answered); one already over is left alone. */
  const hangUp = ({ config, providerCallId }: { readonly config: CloudonixConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const found = yield* session(config, providerCallId)
      if (Either.isLeft(found)) return yield* Rest.failure(found.left, "hang up the call")
      if (Callbacks.sessionStatus(found.right)._tag === "Ended") return
      const deleted = yield* rest.send({
        apiKey: config.bearer_token,
        method: "DELETE",
        path: `${domainPath(config)}/sessions/${encodeURIComponent(providerCallId)}`,
        schema: Schema.Unknown,
        what: "hang up the call"
      })
      if (Either.isLeft(deleted)) return yield* Rest.failure(deleted.left, "hang up the call")
    })

  const parseStatus = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const parsed = Callbacks.parseStatus(new TextDecoder().decode(request.rawBody), now)
      return parsed._tag === "Events" ? Effect.succeed(parsed.events) : Effect.fail(refused(parsed.reason))
    })

  /** A voice application request: JSON (as Cloudonix documents it), a form, or a GET's query. */
  const parseInbound = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.suspend(() => {
      const params = Requests.paramsOf(Requests.read(new TextDecoder().decode(request.rawBody), request.url))
      if (params === undefined) return Effect.fail(refused("not a Cloudonix incoming call: the body is neither a JSON object nor a form"))
      const call = Requests.incomingCall(params)
      const accountId = cloudonixDomain(call.domain)
      if (accountId === undefined || call.to === undefined || call.token === undefined) {
        return Effect.fail(refused("not a Cloudonix incoming call: Domain (or AccountSid), To and Session (or CallSid) are required"))
      }
      return Effect.succeed<InboundCall>({ accountId, to: call.to, from: call.from, providerCallId: call.token })
    })

  const configure = (
    { address, config, webhookUrl }: { readonly config: CloudonixConfig; readonly address: string; readonly webhookUrl: string | null }
  ) =>
    Effect.gen(function*() {
      const application = config.application_name
      if (application === undefined || application.trim() === "") {
        return {
          ok: false,
          message: "Cloudonix: set application_name on the telephony configuration (the voice application that receives calls) to bind numbers"
        }
      }
      const appPath = `${domainPath(config)}/applications/${encodeURIComponent(application)}`
      const listed = yield* rest.send({
        apiKey: config.bearer_token,
        method: "GET",
        path: `${domainPath(config)}/dnids`,
        schema: Rest.Dnids,
        what: "list the domain's numbers"
      })
      if (Either.isLeft(listed)) return { ok: false, message: Rest.failure(listed.left, "list the domain's numbers").message }
      const existing = Rest.dnidOf(listed.right, address)
      const ours = existing !== undefined && Rest.applicationName(existing) === application
      if (webhookUrl === null) {
        if (existing === undefined || !ours) {
          return { ok: true, message: `Cloudonix: ${address} is not on the application ${application}; nothing to undo` }
        }
        const removed = yield* rest.send({
          apiKey: config.bearer_token,
          method: "DELETE",
          path: `${domainPath(config)}/dnids/${existing.id}`,
          schema: Schema.Unknown,
          what: "detach the number from the application"
        })
        if (Either.isLeft(removed)) return { ok: false, message: Rest.failure(removed.left, "detach the number from the application").message }
        return { ok: true, message: `Cloudonix: incoming calls to ${address} no longer reach this server` }
      }
      const pointed = yield* rest.send({
        apiKey: config.bearer_token,
        method: "PATCH",
        path: appPath,
        body: { url: webhookUrl, method: "POST" },
        schema: Schema.Unknown,
        what: "point the voice application at this server"
      })
      if (Either.isLeft(pointed)) return { ok: false, message: Rest.failure(pointed.left, "point the voice application at this server").message }
      if (existing !== undefined && ours) {
        if (existing.active === false) {
          return {
            ok: false,
            message: `Cloudonix: ${address} is on the application ${application} but its DNID is inactive; activate it in the Cloudonix cockpit`
          }
        }
        return { ok: true, message: `Cloudonix: incoming calls to ${address} are sent to ${webhookUrl}` }
      }
      if (existing !== undefined) {
        return {
          ok: false,
          message: `Cloudonix: ${address} belongs to the application ${Rest.applicationLabel(existing)}; move it to ${application} in the Cloudonix cockpit`
        }
      }
      const attached = yield* rest.send({
        apiKey: config.bearer_token,
        method: "POST",
        path: `${appPath}/dnids`,
        body: { source: address, prefix: false, expression: false, asteriskCompatible: false },
        schema: Schema.Unknown,
        what: "attach the number to the application"
      })
      if (Either.isLeft(attached)) return { ok: false, message: Rest.failure(attached.left, "attach the number to the application").message }
      return { ok: true, message: `Cloudonix: incoming calls to ${address} are sent to ${webhookUrl}` }
    }).pipe(Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message })))

  return {
    name: "cloudonix",
    displayName: "Cloudonix",
    configSchema: CloudonixConfig,
    fields,
    accountId: (config) => cloudonixDomain(present(config.domain_id)),
    calls: { place, hangUp, get },
    webhooks: {
      verify: ({ config, request }) => Effect.sync(() => isAuthentic(config.bearer_token, request)),
      parseStatus,
      parseInbound,
      answer: ({ instruction }) => ({ status: 200, contentType: "application/xml", body: Cxml.answer(instruction) })
    },
    media: TwilioMediaStream.media,
    inbound: { configure }
  }
}

/** The adapter the server registers: Cloudonix's API at `AGENTLINE_CLOUDONIX_API_URL`. */
export const provider: CloudonixProvider = make()
