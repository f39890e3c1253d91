import { defineConfig } from "vitest/config"

// The adapter's own tests, as its package runs them: the kit as installed (its compiled JavaScript).
export default defineConfig({ test: { include: ["test/**/*.test.ts"], testTimeout: 30_000, hookTimeout: 60_000 } })
