export * as SileroVoiceActivity from "./SileroVoiceActivity.js"
