#!/usr/bin/env node
// The compiled command line (`npm run build` makes `dist/`; `npm install` runs it).
import { existsSync } from "node:fs"

const compiled = new URL("../dist/cli.js", import.meta.url)
if (!existsSync(compiled)) {
  console.error("agentline: the compiled server is missing (packages/http/dist). Run `npm run build` (npm install runs it).")
  process.exit(1)
}
await import(compiled.href)
