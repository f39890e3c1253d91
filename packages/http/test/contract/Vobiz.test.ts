/** The contract suite for Vobiz, against the fake Vobiz of `@agentline/telephony-vobiz/testing`. */
import { Vobiz } from "@agentline/telephony-vobiz"
import * as FakeVobiz from "@agentline/telephony-vobiz/testing/FakeVobiz"
import { runContract } from "./Contract.js"
import { plivoCompatible } from "./PlivoCompatible.js"

runContract(plivoCompatible({
  provider: "vobiz",
  account: { authId: "MA_CONTRACTVOBIZ", authToken: "contract-vobiz-token" },
  makeFake: FakeVobiz.make,
  makeAdapter: (apiUrl) => Vobiz.make({ apiUrl })
}))
