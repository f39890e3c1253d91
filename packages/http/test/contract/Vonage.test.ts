/** The server's contract suite for Vonage, with the carrier of `@agentline/telephony-vonage` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-vonage/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
