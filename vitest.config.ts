import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// One vitest run covers every package; each package's own vitest.config.ts only merges the shared settings.
// `vitest.workspace.ts` is kept for editors and tools that still look for it (Vitest 3.2 reads `projects`).
//
// Workers: most test time is spent waiting (real servers, fake carriers playing calls out on wall-clock
// timers, PostgreSQL), so three test files run at once even on a two-core machine, where vitest's
// default (cores - 1) would run one. The fault scenarios (`npm run test:faults`) start and kill whole
// server processes and run two files at once (the restarts are one file per database, so each worker
// takes one).
const faults = process.env.AGENTLINE_TEST_FAULTS === "1"
const workers = faults ? 2 : Math.max(3, availableParallelism() - 1)

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "examples/vitest.config.ts"],
    globalSetup: ["./test-setup/postgres.ts"],
    maxWorkers: workers,
    minWorkers: 1
  }
})
