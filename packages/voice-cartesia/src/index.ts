export * as CartesiaTextToSpeech from "./CartesiaTextToSpeech.js"
