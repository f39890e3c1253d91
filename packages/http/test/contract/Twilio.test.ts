/** The server's contract suite for Twilio, with the carrier of `@agentline/telephony-twilio` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-twilio/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
