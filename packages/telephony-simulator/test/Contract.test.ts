/** The adapter contract of `@agentline/telephony-kit`: the simulator, its events posted as its HTTP callbacks, its media stream spoken by a leg of its protocol. */
import { runContract } from "@agentline/telephony-kit/testing/Contract"
import { carrier } from "../src/testing/Carrier.js"

runContract(carrier)
