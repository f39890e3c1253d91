export * as Twilio from "./Twilio.js"
