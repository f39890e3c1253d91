export * as DeepgramSpeechToText from "./DeepgramSpeechToText.js"
