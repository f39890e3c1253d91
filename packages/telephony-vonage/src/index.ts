export * as Vonage from "./Vonage.js"
