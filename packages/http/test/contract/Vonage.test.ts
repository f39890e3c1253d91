/** The contract suite for Vonage, against the fake Vonage of `@agentline/telephony-vonage/testing`. */
import { runContract } from "./Contract.js"
import { vonage } from "./VonageCarrier.js"

runContract(vonage)
