/** The server's contract suite for Telnyx, with the carrier of `@agentline/telephony-telnyx` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-telnyx/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
