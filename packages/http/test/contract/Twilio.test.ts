/** The contract suite for Twilio, against the fake Twilio of `@agentline/telephony-twilio/testing`. */
import { runContract } from "./Contract.js"
import { twilio } from "./TwilioCarrier.js"

runContract(twilio)
