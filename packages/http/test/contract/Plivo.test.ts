/** The server's contract suite for Plivo, with the carrier of `@agentline/telephony-plivo` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-plivo/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
