// `npm run lint`: TypeScript rules, Effect's plugin, and the package layering as import rules (which
// package may import which; docs/architecture.md draws it). Formatting is dprint's (`npm run format`).
import effect from "@effect/eslint-plugin"
import tseslint from "typescript-eslint"

/** What each package may import of the others (`@agentline/*`); anything else is a layering error. */
const LAYERS = {
  api: [],
  "telephony-kit": [],
  core: ["api", "telephony-kit"],
  sql: ["api", "core", "telephony-kit"],
  "blob-fs": ["api", "core"],
  // A telephony adapter depends on the kit, nothing else of ours (docs/telephony-adapters.md).
  "telephony-ari": ["telephony-kit"],
  "telephony-cloudonix": ["telephony-kit", "telephony-twilio"],
  "telephony-exotel": ["telephony-kit"],
  "telephony-plivo": ["telephony-kit"],
  // The simulator's callee speaks with core's speech port.
  "telephony-simulator": ["api", "core", "telephony-kit"],
  "telephony-telnyx": ["telephony-kit"],
  "telephony-twilio": ["telephony-kit"],
  "telephony-vobiz": ["telephony-kit", "telephony-plivo"],
  "telephony-vonage": ["telephony-kit"],
  voice: ["api", "core", "voice-local"],
  "voice-cartesia": ["api", "core"],
  "voice-deepgram": ["api", "core"],
  "voice-elevenlabs": ["api", "core"],
  "voice-local": ["api", "core"],
  "voice-openai": ["api", "core", "voice-local"],
  "voice-silero": ["api", "core"],
  dashboard: ["api"]
}
const ALL = [...Object.keys(LAYERS), "http"]

const layering = Object.entries(LAYERS).map(([name, allowed]) => ({
  files: [`packages/${name}/src/**/*.{ts,tsx}`],
  rules: {
    "no-restricted-imports": ["error", {
      patterns: ALL.filter((other) => other !== name && !allowed.includes(other)).map((other) => ({
        group: [`@agentline/${other}`, `@agentline/${other}/*`],
        message: `packages/${name} may import only ${allowed.length === 0 ? "no other @agentline package" : allowed.map((a) => `@agentline/${a}`).join(", ")} (see docs/architecture.md)`
      }))
    }]
  }
}))

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "**/build/**",
      "**/*.d.ts",
      "packages/dashboard/**",
      "examples/**",
      "scripts/**",
      "test-setup/**",
      "*.config.*",
      "vitest.*.ts"
    ]
  },
  {
    files: ["**/*.ts", "**/*.tsx"],
    languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: "module" },
    plugins: { "@typescript-eslint": tseslint.plugin, "@effect": effect },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "no-restricted-syntax": ["error", {
        selector: "TSAsExpression > TSAsExpression[typeAnnotation.type='TSUnknownKeyword']",
        message: "No `as unknown as`: decode with a Schema, narrow with a type guard, or fix the types"
      }]
    }
  },
  ...layering,
  // No source file over 400 lines (300 in packages/voice/src): a longer one is split by what it holds.
  {
    files: ["packages/*/src/**/*.{ts,tsx}"],
    rules: { "max-lines": ["error", { max: 400, skipBlankLines: false, skipComments: false }] }
  },
  {
    files: ["packages/voice/src/**/*.ts"],
    rules: { "max-lines": ["error", { max: 300, skipBlankLines: false, skipComments: false }] }
  },
  // TEMPORARY baseline (issue 23): files that still hold an `any` or an `as unknown as` when the rules were
  // added. New files get the rules; take a file off this list when it is fixed. Do not add to it.
  {
    files: [
    "packages/api/test/campaigns/CampaignSettings.test.ts",
    "packages/telephony-kit/src/TelephonyProvider.ts",
    "packages/http/test/DashboardSession.test.ts",
    "packages/http/test/ErrorModel.test.ts",
    "packages/http/test/Fuzz.test.ts",
    "packages/http/test/Harness.ts",
    "packages/http/test/OpenApiConfigs.test.ts",
    "packages/http/test/RawHttp.ts",
    "packages/http/test/WebhookReceiver.ts",
    "packages/telephony-ari/src/testing/Carrier.ts",
    "packages/http/test/contract/AriLease.test.ts",
    "packages/http/test/contract/Contract.ts",
    "packages/http/test/contract/ContractMedia.ts",
    "packages/telephony-vonage/src/testing/Carrier.ts",
    "packages/http/test/voice/Conversation.test.ts",
    "packages/http/test/voice/RecordedSpeech.test.ts",
    "packages/http/test/voice/SimulatorConversation.test.ts",
    "packages/telephony-ari/src/Inbound.ts",
    "packages/telephony-ari/src/testing/FakeAri.ts",
    "packages/telephony-ari/src/testing/FakeAsterisk.ts",
    "packages/telephony-exotel/src/Media.ts",
    "packages/telephony-exotel/src/testing/FakeExotel.ts",
    "packages/telephony-exotel/src/testing/FakeExotelMedia.ts",
    "packages/telephony-plivo/src/Media.ts",
    "packages/telephony-telnyx/src/testing/FakeCall.ts",
    "packages/telephony-telnyx/src/testing/FakeMedia.ts",
    "packages/telephony-telnyx/src/testing/FakeRules.ts",
    "packages/telephony-telnyx/src/testing/FakeTelnyx.ts",
    "packages/telephony-telnyx/test/Harness.ts",
    "packages/telephony-telnyx/test/Setup.ts",
    "packages/telephony-telnyx/test/TelnyxCalls.test.ts",
    "packages/telephony-twilio/src/testing/FakeMedia.ts",
    "packages/telephony-twilio/test/TwilioProperties.test.ts",
    "packages/telephony-twilio/test/TwilioWebhooks.test.ts",
    "packages/telephony-vonage/src/testing/FakeVonage.ts",
    "packages/telephony-vonage/src/testing/FakeVonageCall.ts",
    "packages/telephony-vonage/src/testing/FakeVonageMedia.ts",
    "packages/voice-cartesia/test/FakeCartesia.ts",
    "packages/voice-elevenlabs/test/FakeElevenLabs.ts",
    "packages/voice-openai/src/testing/FakeOpenAi.ts",
    "packages/voice-openai/test/ChatLanguageModel.test.ts",
    "packages/voice-openai/test/OpenAiSpeech.test.ts",
  ],
    rules: { "@typescript-eslint/no-explicit-any": "off", "no-restricted-syntax": "off" }
  }
)
