/**
 * The contract every calling adapter keeps, run from the adapter's own tests against its own fake:
 *
 *   import { runContract } from "@agentline/telephony-kit/testing/Contract"
 *   import { carrier } from "../src/testing/Carrier.js"
 *   runContract(carrier)
 *
 * It needs no Agentline server: a stand-in (`ContractHost`) places calls through the adapter and serves,
 * at the server's paths, what the fake calls back (callbacks, answer requests, voice webhooks, media
 * streams). What it checks is the port's behaviour: the configuration's schema and fields, placing a
 * call and its normalized events, machine detection, refusals, callback signatures, duplicate and late
 * callbacks, hang-up, what `get` tells for recovery, 429/5xx, the media round trip through the fake's
 * media leg, incoming calls, number configuration and transfers. What needs the server (runs, the dispatcher's
 * retries, media tokens, organization limits, campaigns) is Agentline's own suite, over the same
 * carrier object. docs/telephony-adapters.md lists which check runs where.
 *
 * Needs `vitest` and `@effect/vitest` (the adapter's test runner).
 */
import { layer } from "@effect/vitest"
import type { CarrierUnderTest } from "./Carrier.js"
import { callTests, configurationTests } from "./ContractCalls.js"
import { inboundTests } from "./ContractInbound.js"
import { mediaTests } from "./ContractMedia.js"
import * as ContractSetup from "./ContractSetup.js"
import { transferTests } from "./ContractTransfer.js"

export type { CarrierFake, CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario, Started, WarmTransferSeen } from "./Carrier.js"

/** Registers the contract's tests for `carrier` (a `describe` block named after the provider). */
export const runContract = (carrier: CarrierUnderTest, options: { readonly timeout?: `${number} seconds` } = {}) =>
  layer(ContractSetup.layer(carrier), { timeout: options.timeout ?? "60 seconds", excludeTestServices: true })(
    `${carrier.provider} adapter contract`,
    (it) => {
      configurationTests(it)
      callTests(it)
      mediaTests(it)
      inboundTests(it)
      transferTests(it, carrier.transfers === true)
    }
  )
