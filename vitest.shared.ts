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
    // The libraries' test files share their worker's modules (effect, the packages) instead of loading
    // them again per file: loading was half of core's test time. Their tests hold no process-wide state
    // (each builds its own layers). `@agentline/http`, the dashboard and the examples, whose tests start
    // servers, set environment variables and spawn processes, keep a fresh module graph per file.
    isolate: false,
    fakeTimers: { toFake: undefined },
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
