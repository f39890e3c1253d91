/**
 * How audio is encoded (G.711 µ-law or A-law, 16-bit linear PCM in either byte order, at any rate), as
 * carriers stream it and speech services take it. The definitions are the media port's, in
 * `@agentline/telephony-kit` (an adapter depends on the kit, not on core); core's audio, the voice
 * runtime and the speech adapters name them from here.
 */
export * from "@agentline/telephony-kit/AudioFormat"
