/** The contract suite for Cloudonix, against the fake Cloudonix of `@agentline/telephony-cloudonix/testing`. */
import { cloudonix } from "./CloudonixCarrier.js"
import { runContract } from "./Contract.js"

runContract(cloudonix)
