/** The contract suite for Plivo, against the fake Plivo of `@agentline/telephony-plivo/testing`. */
import { Plivo } from "@agentline/telephony-plivo"
import * as FakePlivo from "@agentline/telephony-plivo/testing/FakePlivo"
import { runContract } from "./Contract.js"
import { plivoCompatible } from "./PlivoCompatible.js"

runContract(plivoCompatible({
  provider: "plivo",
  account: { authId: "MACONTRACTPLIVO00001", authToken: "contract-plivo-token" },
  makeFake: FakePlivo.make,
  makeAdapter: (apiUrl) => Plivo.make({ apiUrl })
}))
