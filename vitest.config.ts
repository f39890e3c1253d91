import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

// One vitest run covers every package; each package's own vitest.config.ts only merges the shared settings.
// `vitest.workspace.ts` is kept for editors and tools that still look for it (Vitest 3.2 reads `projects`).
//
// Workers: most test time is spent waiting (real servers, fake carriers playing calls out on wall-clock
// timers, PostgreSQL), so two test files run at once even on a two-core machine, where vitest's default
// (cores - 1) would run one: the whole suite takes about half as long. The fault scenarios
// (`npm run test:faults`) start and kill whole server processes; they too run two files at once (the
// restarts are one file per database, so each worker takes one).
const workers = Math.max(2, availableParallelism() - 1)

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "examples/vitest.config.ts"],
    globalSetup: ["./test-setup/postgres.ts"],
    maxWorkers: workers,
    minWorkers: 1
  }
})
