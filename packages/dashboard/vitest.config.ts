import { defineProject, mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

export default mergeConfig(
  shared,
  defineProject({
    test: {
      name: "@agentline/dashboard",
      isolate: true,
      // The browser tests (test/browser) drive the built dashboard: rebuild it when its sources changed.
      globalSetup: ["./test/buildFresh.ts"]
    }
  })
)
