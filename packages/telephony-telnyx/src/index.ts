export * as Telnyx from "./Telnyx.js"
