import { defineConfig } from "vitest/config"

// One vitest run covers every package; each package's own vitest.config.ts only merges the shared settings.
// `vitest.workspace.ts` is kept for editors and tools that still look for it (Vitest 3.2 reads `projects`).
export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "examples/vitest.config.ts"],
    globalSetup: ["./test-setup/postgres.ts"]
  }
})
