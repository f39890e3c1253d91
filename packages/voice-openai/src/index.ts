export * as ChatCompletions from "./ChatCompletions.js"
export * as ChatLanguageModel from "./ChatLanguageModel.js"
export * as OpenAiSpeech from "./OpenAiSpeech.js"
