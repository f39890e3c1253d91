export * as LocalSpeechToText from "./LocalSpeechToText.js"
export * as LocalTextToSpeech from "./LocalTextToSpeech.js"
export * from "./LocalVoiceError.js"
export * as WordErrorRate from "./WordErrorRate.js"
