/**
 * The dialing helpers of core's tests (`core/test/DispatchHarness.ts`), with organizations that also
 * have an API key (`Harness.seedOrganization`) for the requests these tests send.
 */
import { prepareDialing, type DialingOptions } from "../../core/test/DispatchHarness.js"
import { Effect } from "effect"
import { seedOrganization } from "./Harness.js"

export {
  activeCalls,
  activeCallsSettled,
  advanceUntil,
  attemptsPerContact,
  Campaigns,
  csvOf,
  Dispatcher,
  numbers,
  plainDefinition,
  settle,
  type SimulatorSettings,
  uploadCsv
} from "../../core/test/DispatchHarness.js"

/** A new organization with an API key, ready to dial. */
export const setupDialing = (options: DialingOptions = {}) => Effect.flatMap(seedOrganization(), (org) => prepareDialing(org, options))
