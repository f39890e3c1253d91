export { AgentlineApi } from "./Api.js"
export * as Embed from "./Embed.js"
export * as Server from "./Server.js"
export * as ServerConfig from "./ServerConfig.js"
