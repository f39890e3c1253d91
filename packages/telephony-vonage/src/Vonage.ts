/**
 * Vonage (Voice API): configuration and the calling adapter.
 *
 * - calls: `POST /v1/calls` with an application JWT (RS256, the configuration's private key and
 *   `application_id`: `Jwt.ts`), the callee, the caller id, our answer URL (`answer_method: POST`) and
 *   our callback URL as the call's `event_url`; the `uuid` it answers is the call's id. With
 *   `amd_enabled`, `advanced_machine_detection` in its synchronous mode (`detect`) with `behavior:
 *   hangup`: Vonage tells who answered (`human` / `machine` events) before it asks for the NCCO, and
 *   drops machine-answered calls itself. Hang-up is `PUT /v1/calls/{uuid}` `{"action":"hangup"}`;
 *   lookups `GET /v1/calls/{uuid}`.
 * - webhooks: signed callbacks, a JWT in `Authorization` (HS256 with the signature secret, its
 *   `payload_hash` the SHA-256 of the body): a configuration without `signature_secret` cannot verify
 *   anything, so calls through it are refused up front. Events are JSON (`Events.ts`); answers are NCCOs
 *   (`Ncco.ts`).
 * - media: Vonage's WebSocket, 16-bit linear PCM at 16 kHz in binary 20 ms frames, JSON text frames for
 *   control (`VonageMedia.ts`).
 * - inbound: an application has one answer URL for all the numbers linked to it. Binding a number
 *   points the configuration's application at this server (Applications API v2, signed callbacks on)
 *   and links the number to it (Numbers API); unbinding unlinks the number only.
 *
 * The inbound routing key's account id is the API key: Vonage's signed webhooks name it (`api_key`).
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import { optionalText, present, providerConfig, requiredText, secretField, textField } from "@agentline/telephony-kit/ProviderConfig"
import {
  type InboundCall,
  type PlaceCall,
  type ProviderField,
  type ProviderSync,
  TelephonyError,
  type TelephonyProvider,
  type WebhookRequest
} from "@agentline/telephony-kit/TelephonyProvider"
import { Clock, Effect, Either, Schema } from "effect"
import * as Events from "./Events.js"
import * as Jwt from "./Jwt.js"
import * as Ncco from "./Ncco.js"
import * as Rest from "./Rest.js"
import * as VonageMedia from "./VonageMedia.js"

export const VonageConfig = providerConfig({
  api_key: requiredText("api_key"),
  api_secret: requiredText("api_secret"),
  application_id: requiredText("application_id"),
  private_key: requiredText("private_key"),
  signature_secret: optionalText,
  amd_enabled: Schema.optionalWith(Schema.Boolean, { nullable: true, default: () => false })
})
export type VonageConfig = typeof VonageConfig.Type

export const fields: ReadonlyArray<ProviderField> = [
  secretField("api_key", "API key", true),
  secretField("api_secret", "API secret", true),
  textField("application_id", "Application ID", true),
  {
    name: "private_key",
    label: "Private key",
    type: "textarea",
    required: true,
    sensitive: true,
    description: "The application's PEM private key (signs API requests)"
  },
  secretField("signature_secret", "Signature secret", false, "Verifies signed webhooks; calls and inbound calls need it"),
  {
    name: "amd_enabled",
    label: "Answering machine detection",
    type: "boolean",
    required: false,
    sensitive: false,
    description: "Ask Vonage to detect answering machines (advanced machine detection, billed by Vonage); machine answers end as voicemail"
  }
]


const refused = (message: string) => new TelephonyError({ provider: "vonage", message, retryable: false })

const header = (request: WebhookRequest, name: string): string | undefined => {
  for (const [key, value] of Object.entries(request.headers)) if (key.toLowerCase() === name) return value
  return undefined
}

/** How Vonage wants an address: phone numbers as digits without `+`, SIP URIs as `sip` endpoints. */
export const endpointOf = (address: string): Record<string, string> | undefined => {
  if (/^\+[1-9][0-9]{6,14}$/.test(address)) return { type: "phone", number: address.slice(1) }
  if (/^sips?:/i.test(address)) return { type: "sip", uri: address }
  return undefined
}

/** The application JWT for one request; a key that is not a PEM private key is a refusal (its text never shown). */
const applicationToken = (config: VonageConfig) =>
  Effect.flatMap(Clock.currentTimeMillis, (nowMillis) =>
    Effect.try({
      try: () => Jwt.applicationToken({ applicationId: config.application_id, privateKey: config.private_key, nowMillis }),
      catch: () => refused("Vonage: the configuration's private_key is not a valid PEM private key")
    }))

const basic = (config: VonageConfig): Rest.Auth => ({ _tag: "Basic", user: config.api_key, password: config.api_secret })

/** Whether a webhook carries a JWT Vonage signed for this configuration about exactly this body. */
export const isAuthentic = (config: VonageConfig, request: WebhookRequest, nowMillis: number): boolean =>
  Jwt.verifyWebhook({
    token: Jwt.bearer(header(request, "authorization")),
    secret: config.signature_secret ?? "",
    apiKey: config.api_key,
    applicationId: config.application_id,
    body: request.rawBody,
    nowMillis
  })

/** A number as Vonage writes it (digits) in E.164 with `+`, so routing sees the same number either way. */
const e164 = (value: string) => (/^[1-9][0-9]{6,14}$/.test(value) ? `+${value}` : value)

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** An incoming call's answer request (JSON: `to`, `from`, `uuid`, `conversation_uuid`) as its routing key. */
export const inboundCall = (request: WebhookRequest): Either.Either<InboundCall, string> => {
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder().decode(request.rawBody))
  } catch {
    return Either.left("not a Vonage answer request: the body is not JSON")
  }
  if (!isRecord(body)) return Either.left("not a Vonage answer request: the body is not a JSON object")
  // Status events carry `status`; an answer request does not.
  if (body.status !== undefined) return Either.left(`a Vonage call event (${String(body.status)}), not an incoming call`)
  const to = typeof body.to === "string" ? body.to : undefined
  const from = typeof body.from === "string" ? body.from : ""
  const uuid = typeof body.uuid === "string" ? body.uuid : undefined
  // The account is named by the signed JWT (verified later, with the configuration the number routes to).
  const token = Jwt.bearer(header(request, "authorization"))
  const apiKey = token === undefined ? undefined : Jwt.decode(token)?.claims.api_key
  if (to === undefined || uuid === undefined) return Either.left("not a Vonage answer request: to and uuid are required")
  if (typeof apiKey !== "string" || apiKey === "") return Either.left("a Vonage answer request that is not signed (turn signed callbacks on)")
  return Either.right({ accountId: apiKey, to: e164(to), from: e164(from), providerCallId: uuid })
}

export type VonageProvider = TelephonyProvider<VonageConfig> & {
  readonly calls: NonNullable<TelephonyProvider<VonageConfig>["calls"]>
  readonly webhooks: NonNullable<TelephonyProvider<VonageConfig>["webhooks"]>
}

/** The adapter; `apiUrl` overrides `AGENTLINE_VONAGE_API_URL`, `restUrl` `AGENTLINE_VONAGE_REST_URL` (tests, private deployments). */
export const make = (options: { readonly apiUrl?: string | undefined; readonly restUrl?: string | undefined } = {}): VonageProvider => {
  const rest = Rest.make(options)

  const place = (input: PlaceCall<VonageConfig>) =>
    Effect.gen(function*() {
      const { config } = input
      if (present(config.signature_secret) === undefined) {
        return yield* refused("Vonage: set signature_secret on the telephony configuration: this server verifies every Vonage webhook")
      }
      const to = endpointOf(input.to)
      if (to === undefined) return yield* refused(`Vonage cannot dial ${input.to}: only phone numbers and SIP URIs`)
      const from = input.from === undefined ? undefined : endpointOf(input.from)
      const token = yield* applicationToken(config)
      const what = `place the call to ${input.to}`
      const placed = yield* rest.send({
        api: "voice",
        auth: { _tag: "Bearer", token },
        method: "POST",
        path: "/v1/calls",
        json: {
          to: [to],
          ...(from?.type === "phone" ? { from } : { random_from_number: true }),
          answer_url: [input.answerUrl],
          answer_method: "POST",
          event_url: [input.callbackUrl],
          event_method: "POST",
          ...(config.amd_enabled ? { advanced_machine_detection: { behavior: "hangup", mode: "detect" } } : {})
        },
        schema: Rest.PlacedCall,
        what
      })
      if (Either.isLeft(placed)) return yield* Rest.failure(placed.left, what)
      return { providerCallId: placed.right.uuid }
    })

  const lookUp = (config: VonageConfig, uuid: string) =>
    Effect.flatMap(applicationToken(config), (token) =>
      rest.send({
        api: "voice",
        auth: { _tag: "Bearer", token },
        method: "GET",
        path: `/v1/calls/${encodeURIComponent(uuid)}`,
        schema: Rest.Call,
        what: "look the call up"
      }))

  /** Transient failures are tried again here: `get` has no error channel, and Unknown means "never re-dial". */
  const get = ({ config, providerCallId }: { readonly config: VonageConfig; readonly providerCallId: string }) =>
    ProviderRest.lookUpCall(
      lookUp(config, providerCallId),
      (f) => Rest.failure(f, "look the call up"),
      (found) => Events.callStatus({ status: found.status, duration: found.duration })
    )

  const isOver = (config: VonageConfig, uuid: string) =>
    Effect.map(lookUp(config, uuid), (found) => Either.isRight(found) && Events.outcomeOf(found.right.status) !== undefined)

  /** A call already over is left alone (hanging it up is then no error); one that ends meanwhile too. */
  const hangUp = ({ config, providerCallId }: { readonly config: VonageConfig; readonly providerCallId: string }) =>
    Effect.gen(function*() {
      const found = yield* lookUp(config, providerCallId)
      if (Either.isLeft(found)) return yield* Rest.failure(found.left, "hang up the call")
      if (Events.outcomeOf(found.right.status) !== undefined) return
      const token = yield* applicationToken(config)
      const done = yield* rest.send({
        api: "voice",
        auth: { _tag: "Bearer", token },
        method: "PUT",
        path: `/v1/calls/${encodeURIComponent(providerCallId)}`,
        json: { action: "hangup" },
        schema: Schema.Unknown,
        what: "hang up the call"
      })
      if (Either.isLeft(done) && !(done.left.status < 500 && done.left.status !== 429 && (yield* isOver(config, providerCallId)))) {
        return yield* Rest.failure(done.left, "hang up the call")
      }
    })

  const parseStatus = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => {
      const parsed = Events.parse(new TextDecoder().decode(request.rawBody), now)
      return parsed._tag === "Events" ? Effect.succeed(parsed.events) : Effect.fail(refused(parsed.reason))
    })

  const parseInbound = ({ request }: { readonly request: WebhookRequest }) =>
    Effect.suspend(() => Either.match(inboundCall(request), { onLeft: (reason) => Effect.fail(refused(reason)), onRight: Effect.succeed }))

  const configure = (
    { address, config, webhookUrl }: { readonly config: VonageConfig; readonly address: string; readonly webhookUrl: string | null }
  ) =>
    Effect.gen(function*() {
      const number = endpointOf(address)
      if (number?.type !== "phone") return { ok: false, message: `Vonage: ${address} is not a phone number; link it to the application by hand` }
      const msisdn = number.number!
      const listed = yield* rest.send({
        api: "numbers",
        auth: basic(config),
        method: "GET",
        path: `/account/numbers?pattern=${encodeURIComponent(msisdn)}&search_pattern=0`,
        schema: Rest.OwnedNumbers,
        what: "find the number"
      })
      if (Either.isLeft(listed)) return { ok: false, message: Rest.failure(listed.left, "find the number").message }
      const owned = listed.right.numbers.find((n) => n.msisdn === msisdn)
      if (owned === undefined) return { ok: false, message: `Vonage: ${address} is not a number of this Vonage account` }
      const link = (appId: string, what: string) =>
        rest.send({
          api: "numbers",
          auth: basic(config),
          method: "POST",
          path: "/number/update",
          form: { country: owned.country, msisdn, app_id: appId },
          schema: Schema.Unknown,
          what
        })
      if (webhookUrl === null) {
        // The application's answer URL serves its other numbers: only this number is unlinked.
        if (owned.app_id !== config.application_id) {
          return { ok: true, message: `Vonage: ${address} is not linked to the application; nothing to undo` }
        }
        const unlinked = yield* link("", "unlink the number from the application")
        if (Either.isLeft(unlinked)) return { ok: false, message: Rest.failure(unlinked.left, "unlink the number from the application").message }
        return { ok: true, message: `Vonage: incoming calls to ${address} no longer reach this server` }
      }
      const appPath = `/v2/applications/${encodeURIComponent(config.application_id)}`
      const application = yield* rest.send({ api: "voice", auth: basic(config), method: "GET", path: appPath, schema: Rest.Application, what: "read the application" })
      if (Either.isLeft(application)) return { ok: false, message: Rest.failure(application.left, "read the application").message }
      const pointed = pointApplication(application.right, webhookUrl)
      if (pointed !== undefined) {
        const written = yield* rest.send({ api: "voice", auth: basic(config), method: "PUT", path: appPath, json: pointed, schema: Schema.Unknown, what: "point the application at this server" })
        if (Either.isLeft(written)) return { ok: false, message: Rest.failure(written.left, "point the application at this server").message }
      }
      // A number answers one application: binding it here is the intent, so it moves (and says so).
      const previous = owned.app_id == null || owned.app_id === "" || owned.app_id === config.application_id ? undefined : owned.app_id
      if (owned.app_id !== config.application_id) {
        const linked = yield* link(config.application_id, "link the number to the application")
        if (Either.isLeft(linked)) return { ok: false, message: Rest.failure(linked.left, "link the number to the application").message }
      }
      return {
        ok: true,
        message: `Vonage: incoming calls to ${address} are sent to ${webhookUrl}${previous === undefined ? "" : ` (the number left the application ${previous})`}`
      }
    }).pipe(Effect.catchAll((e) => Effect.succeed<ProviderSync>({ ok: false, message: e.message })))

  return {
    name: "vonage",
    displayName: "Vonage",
    configSchema: VonageConfig,
    fields,
    accountId: (config) => present(config.api_key),
    calls: { place, hangUp, get },
    webhooks: {
      verify: ({ config, request }) => Effect.map(Clock.currentTimeMillis, (now) => isAuthentic(config, request, now)),
      parseStatus,
      parseInbound,
      answer: ({ instruction }) => Ncco.answer(instruction)
    },
    media: VonageMedia.media,
    inbound: { configure }
  }
}

/**
 * The application (as the Applications API returned it) with its voice answer URL at `webhookUrl`
 * (POST) and signed callbacks on, as the body of the PUT that replaces it; undefined when it is so
 * already. The event URL is left as it is: events of outbound calls go to each call's own `event_url`,
 * and this server settles incoming calls by looking them up when their media stream ends.
 */
export const pointApplication = (application: Readonly<Record<string, unknown>>, webhookUrl: string): Record<string, unknown> | undefined => {
  const { _links, id, ...rest } = application
  void _links
  void id
  const capabilities = isRecord(rest.capabilities) ? rest.capabilities : {}
  const voice = isRecord(capabilities.voice) ? capabilities.voice : {}
  const webhooks = isRecord(voice.webhooks) ? voice.webhooks : {}
  const current = isRecord(webhooks.answer_url) ? webhooks.answer_url : {}
  if (current.address === webhookUrl && current.http_method === "POST" && voice.signed_callbacks === true) return undefined
  return {
    ...rest,
    capabilities: {
      ...capabilities,
      voice: { ...voice, signed_callbacks: true, webhooks: { ...webhooks, answer_url: { address: webhookUrl, http_method: "POST" } } }
    }
  }
}

/** The adapter the server registers: Vonage's APIs at `AGENTLINE_VONAGE_API_URL` / `AGENTLINE_VONAGE_REST_URL`. */
export const provider: VonageProvider = make()
