import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// `npm run test:faults` (AGENTLINE_TEST_FAULTS=1) runs the slow fault scenarios (`*.faults.ts`: real
// processes killed, stopped and cut off from their database) instead of the regular tests.
const faults = process.env.AGENTLINE_TEST_FAULTS === "1"

export default defineConfig({
  // Tests run the workspace packages' TypeScript sources (their `source` export condition), not `dist/`.
  resolve: { conditions: ["source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["source", ...defaultServerConditions], externalConditions: ["source"] } },
  test: {
    include: faults ? ["test/**/*.faults.ts"] : ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
