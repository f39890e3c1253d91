/** The kit's adapter contract, run by the Acme adapter from its own tests against its own fake. */
import { runContract } from "@agentline/telephony-kit/testing/Contract"
import { carrier } from "../src/testing/Carrier.js"

runContract(carrier)
