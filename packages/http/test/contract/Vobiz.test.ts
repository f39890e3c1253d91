/** The server's contract suite for Vobiz, with the carrier of `@agentline/telephony-vobiz` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-vobiz/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
