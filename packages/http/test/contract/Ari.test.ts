/** The contract suite for Asterisk ARI, against the fake Asterisk of `@agentline/telephony-ari/testing`. */
import { ari } from "./AriCarrier.js"
import { runContract } from "./Contract.js"

runContract(ari)
