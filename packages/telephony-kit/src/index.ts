/**
 * The kit a telephony adapter for Agentline depends on (first-party and third-party alike): the port,
 * its media types and audio formats, the configuration helpers and the REST helper. The fake-carrier
 * building blocks and the contract suite are under `@agentline/telephony-kit/testing/*`.
 */
export * as AudioFormat from "./AudioFormat.js"
export * as Media from "./Media.js"
export * as ProviderConfig from "./ProviderConfig.js"
export * as ProviderRest from "./ProviderRest.js"
export * as TelephonyProvider from "./TelephonyProvider.js"
export * as Transfer from "./Transfer.js"
