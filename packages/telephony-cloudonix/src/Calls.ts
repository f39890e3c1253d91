/**
 * Cloudonix's `calls`: `POST /calls/{domain}/application` with the callee (`destination`), the caller id
 * (required) and the CXML to run (a `<Redirect>` to our answer route: see `Answer.ts`), and `callback`
 * for session notifications; the session `token` it answers is the call's id. Hang-up deletes the
 * session, recovery reads it (`/calls/{domain}/sessions/{token}`).
 */
import * as ProviderRest from "@agentline/telephony-kit/ProviderRest"
import { type PlaceCall, type ProviderCalls, TelephonyError } from "@agentline/telephony-kit/TelephonyProvider"
import { Effect, Either, Schema } from "effect"
import * as Answer from "./Answer.js"
import * as Callbacks from "./Callbacks.js"
import { cloudonixDomain, type CloudonixConfig } from "./Config.js"
import * as Rest from "./Rest.js"

const refused = (message: string) => new TelephonyError({ provider: "cloudonix", message, retryable: false })

/** Where a domain's sessions are, as the "Session" data model page names them. */
const sessionPath = (config: CloudonixConfig, token: string) =>
  `/calls/${encodeURIComponent(cloudonixDomain(config.domain_id) ?? "")}/sessions/${encodeURIComponent(token)}`

export const make = (rest: Rest.Rest): ProviderCalls<CloudonixConfig> => {
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
          cxml: Answer.redirectTo(input.answerUrl),
          callback: input.callbackUrl
        },
        schema: Rest.PlacedCall,
        what: "place the call"
      })
      if (Either.isLeft(placed)) return yield* Rest.failure(placed.left, "place the call")
      return { providerCallId: placed.right.token }
    })

  const session = (config: CloudonixConfig, token: string) =>
    rest.send({ apiKey: config.bearer_token, method: "GET", path: sessionPath(config, token), schema: Rest.Session, what: "look the call up" })

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
        path: sessionPath(config, providerCallId),
        schema: Schema.Unknown,
        what: "hang up the call"
      })
      if (Either.isLeft(deleted)) return yield* Rest.failure(deleted.left, "hang up the call")
    })

  return { place, hangUp, get }
}
