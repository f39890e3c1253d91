/** The adapter contract of `@agentline/telephony-kit`, against the fake Plivo. */
import { runContract } from "@agentline/telephony-kit/testing/Contract"
import { carrier } from "../src/testing/Carrier.js"

runContract(carrier)
