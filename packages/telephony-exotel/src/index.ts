export * as Exotel from "./Exotel.js"
export * as ExotelCallbacks from "./Callbacks.js"
export * as ExotelWebhookAuth from "./WebhookAuth.js"
export * as VoicebotStream from "./VoicebotStream.js"
