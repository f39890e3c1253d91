/** The server's contract suite for Exotel, with the carrier of `@agentline/telephony-exotel` (its adapter against its fake). */
import { carrier } from "@agentline/telephony-exotel/testing/Carrier"
import { runServerContract } from "./Contract.js"

runServerContract(carrier)
