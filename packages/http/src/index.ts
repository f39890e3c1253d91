export * as Embed from "./Embed.js"
export * as Server from "./Server.js"
export * as ServerConfig from "./ServerConfig.js"
export * as Providers from "./telephony/Providers.js"
