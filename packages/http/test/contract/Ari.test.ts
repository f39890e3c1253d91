/** The server's contract suite for Ari, with the carrier of `@agentline/telephony-ari` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-ari/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
