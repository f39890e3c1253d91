/** Vobiz as a carrier under test: the Plivo-compatible carrier wiring, in Vobiz's dialect, against the fake Vobiz. */
import type { CarrierUnderTest } from "@agentline/telephony-kit/testing/Carrier"
import { plivoCompatible } from "@agentline/telephony-plivo/testing/Carrier"
import * as Vobiz from "../Vobiz.js"
import * as FakeVobiz from "./FakeVobiz.js"

export const carrier: CarrierUnderTest = plivoCompatible({
  provider: "vobiz",
  account: { authId: "MA_CONTRACTVOBIZ", authToken: "contract-vobiz-token" },
  makeFake: FakeVobiz.make,
  makeAdapter: (apiUrl) => Vobiz.make({ apiUrl })
})
