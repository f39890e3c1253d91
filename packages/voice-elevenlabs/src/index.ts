export * as ElevenLabsTextToSpeech from "./ElevenLabsTextToSpeech.js"
