/**
 * Incoming calls: a provider's voice webhook (`POST /telephony/inbound/{provider}`) is routed by its
 * routing key (provider, account id, called number normalized) to the phone number, its configuration
 * and the agent bound to it (`inbound_workflow_id`). The request is verified with that configuration's
 * credentials (a wrong or missing signature: refused, nothing happens). The call then takes an
 * organization slot; it gets a run (`call_type: "inbound"`, the provider as `mode`, the caller in
 * `initial_context`) and is answered with a media stream to this server.
 *
 * Every other ending is an answer the caller can hear, never a server error: an unknown number, a
 * number without an agent or with an archived one, an unreadable request get a polite rejection (and a
 * log line); an organization at its concurrency limit gets the provider's busy signal.
 */
import { AttemptId, OrganizationId } from "@agentline/api/Ids"
import { Effect, Either, Option } from "effect"
import { Dispatcher } from "../dispatcher/Dispatcher.js"
import { MediaTokens } from "../media/MediaTokens.js"
import { normalizeAddress } from "../phone-numbers/PhoneAddress.js"
import { PhoneNumbersRepo } from "../phone-numbers/PhoneNumbersRepo.js"
import { PublicUrls } from "../PublicUrls.js"
import { OutboundRouting } from "../telephony/OutboundRouting.js"
import type { CallEvent, CallInstruction, TelephonyProvider, WebhookRequest, WebhookResponse } from "@agentline/telephony-kit/TelephonyProvider"
import { InProcessInbound } from "../telephony/InProcessInbound.js"
import { TelephonyRegistry } from "../telephony/TelephonyRegistry.js"
import { WorkflowsRepo } from "../workflows/WorkflowsRepo.js"
import { InvalidCallbackSignature, UnknownCall } from "./Errors.js"

/** What a caller hears when this server will not take the call. */
export const UNAVAILABLE = "Sorry, this number cannot take your call right now. Goodbye."

const unavailable: CallInstruction = { _tag: "Reject", reason: UNAVAILABLE }
const busy: CallInstruction = { _tag: "Reject", reason: "All our lines are busy. Please call again later.", busy: true }

export class InboundCalls extends Effect.Service<InboundCalls>()("@agentline/core/InboundCalls", {
  effect: Effect.gen(function*() {
    const registry = yield* TelephonyRegistry
    const numbers = yield* PhoneNumbersRepo
    const routing = yield* OutboundRouting
    const workflows = yield* WorkflowsRepo
    const dispatcher = yield* Dispatcher
    const tokens = yield* MediaTokens
    const urls = yield* PublicUrls

    const receive = Effect.fn("InboundCalls.receive")(function*(providerName: string, request: WebhookRequest) {
      const provider: TelephonyProvider | undefined = Option.getOrUndefined(registry.get(providerName))
      const webhooks = provider?.webhooks
      if (provider === undefined || webhooks === undefined) return yield* new UnknownCall({ attemptId: 0 })
      let callId: string | undefined
      /**
       * Call-control providers (Telnyx) ignore the answer document and act on a command on the call,
       * which needs its configuration (credentials). A failed command is logged; the provider then
       * ends the call by itself.
       */
      const instruct = (config: unknown, instruction: CallInstruction, callbackUrl?: string, onEvent?: (event: CallEvent, options?: { readonly durable?: boolean }) => Effect.Effect<void>) =>
        webhooks.instructCall === undefined || config === undefined || callId === undefined
          ? Effect.void
          : webhooks.instructCall({ config, providerCallId: callId, instruction, callbackUrl, onEvent }).pipe(
            Effect.catchAll((e) => Effect.logWarning(`inbound ${provider.name} call ${callId}: ${e.message}`))
          )
      const refuse = (reason: string, config: unknown, instruction: CallInstruction = unavailable) =>
        Effect.logWarning(`inbound ${provider.name} call refused: ${reason}`).pipe(
          Effect.zipRight(instruct(config, instruction)),
          Effect.as(webhooks.answer({ config, instruction }) satisfies WebhookResponse)
        )

      const call = yield* Effect.either(webhooks.parseInbound({ request }))
      if (Either.isLeft(call)) return yield* refuse(`unreadable request: ${call.left.message}`, undefined)
      const { accountId, from, providerCallId, to } = call.right
      callId = providerCallId
      const called = normalizeAddress(to, null)
      if (Either.isLeft(called)) return yield* refuse(`the called address ${JSON.stringify(to)} is not a number`, undefined)
      const number = yield* numbers.findByRoutingKey({ provider: provider.name, accountId, address: called.right.normalized })
      // The account id is not logged: for some providers it is a credential (Twilio masks its account SID).
      if (Option.isNone(number)) return yield* refuse(`no number ${called.right.normalized} is bound to this server`, undefined)
      const route = yield* routing.resolve(number.value.organization_id, number.value.telephony_configuration_id).pipe(Effect.option)
      if (Option.isNone(route)) return yield* refuse(`the configuration of ${called.right.normalized} is not available`, undefined)
      const config = route.value.config
      // Only now is the sender known: verified with the credentials of the account the number is on.
      if (!(yield* webhooks.verify({ config, request }))) return yield* new InvalidCallbackSignature()
      const where = `${called.right.normalized} (organization ${number.value.organization_id})`
      if (!number.value.is_active) return yield* refuse(`${where} is inactive`, config)
      const workflowId = number.value.inbound_workflow_id
      if (workflowId === null) return yield* refuse(`${where} has no inbound agent`, config)
      const workflow = yield* workflows.find(number.value.organization_id, workflowId)
      if (Option.isNone(workflow) || workflow.value.status !== "active") {
        return yield* refuse(`the inbound agent ${workflowId} of ${where} is archived or gone`, config)
      }
      const caller = normalizeAddress(from, number.value.country_code)
      const accepted = yield* dispatcher.acceptIncomingCall({
        organizationId: OrganizationId.make(number.value.organization_id),
        workflow: workflow.value,
        route: route.value,
        called: called.right.normalized,
        caller: Either.isRight(caller) ? caller.right.normalized : from,
        providerCallId
      })
      if (Option.isNone(accepted)) return yield* refuse(`${where} is at its concurrency limit`, config, busy)
      const stream = urls.mediaStream
      const instruction: CallInstruction = stream === undefined || provider.media === undefined
        ? { _tag: "KeepOpen" }
        : {
          _tag: "ConnectMediaStream",
          url: stream({ provider: provider.name, token: yield* tokens.issue({ attemptId: accepted.value.attemptId, provider: provider.name }) }),
          parameters: { attempt_id: String(accepted.value.attemptId), run_id: String(accepted.value.run.id) }
        }
      // The call's own status callbacks (answered, hang-up) go to its attempt, as an outbound call's do.
      const attemptId = AttemptId.make(accepted.value.attemptId)
      yield* instruct(
        config,
        instruction,
        urls.telephonyCallback({ provider: provider.name, attemptId: accepted.value.attemptId }),
        (event, options) => dispatcher.handleEvent(attemptId, event, options).pipe(Effect.catchAllCause(Effect.logError))
      )
      return webhooks.answer({ config, instruction })
    }, (effect, providerName) =>
      // Whatever else goes wrong, the caller hears an answer, not a server error.
      Effect.catchAllDefect(effect, (defect) =>
        Effect.gen(function*() {
          yield* Effect.logError(`inbound ${providerName} call failed`, defect)
          const webhooks = Option.getOrUndefined(registry.get(providerName))?.webhooks
          return webhooks === undefined
            ? yield* new UnknownCall({ attemptId: 0 })
            : webhooks.answer({ config: undefined, instruction: unavailable })
        })))

    // Incoming calls a provider announces in-process (ARI's StasisStart) take this same route.
    const inProcess = yield* Effect.serviceOption(InProcessInbound)
    if (Option.isSome(inProcess)) {
      yield* inProcess.value.register((providerName, request) =>
        receive(providerName, request).pipe(
          Effect.catchTags({
            UnknownCall: () => Effect.succeed({ status: 404, contentType: "application/json", body: "{\"detail\":\"Unknown provider\"}" }),
            InvalidCallbackSignature: () => Effect.succeed({ status: 401, contentType: "application/json", body: "{\"detail\":\"Invalid signature\"}" })
          }),
          Effect.catchAllCause((cause) =>
            Effect.as(Effect.logError(`inbound ${providerName} call failed`, cause), { status: 500, contentType: "application/json", body: "{}" })
          )
        )
      )
    }

    return { receive } as const
  })
}) {}
