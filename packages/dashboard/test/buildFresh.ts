/**
 * Vitest global setup of the dashboard's tests: the browser tests drive the built dashboard (dist/, as
 * the server serves it), so rebuild it first when a source file is newer than the build. `npm ci`
 * builds it; this keeps an edit-and-test loop honest.
 *
 * The new build is made beside dist/ and then swapped in, under a lock: servers of another test run
 * that is still going (two runs in one checkout) never find dist/ half-written or missing.
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { setTimeout as sleep } from "node:timers/promises"

const root = NodePath.resolve(import.meta.dirname, "..")
const dist = NodePath.join(root, "dist")
const lock = NodePath.join(root, ".dist-build-lock")
/** A lock older than this was left by a run that died. */
const STALE_LOCK_MILLIS = 5 * 60_000

const newest = (path: string): number => {
  const stat = NodeFs.statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return NodeFs.readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(NodePath.join(path, entry))), stat.mtimeMs)
}

const isStale = () => {
  const built = NodePath.join(dist, "index.html")
  // The dashboard bundles `@agentline/api` from its sources too (the node forms are its node-type catalog).
  const sources = ["src", "public", "index.html", "vite.config.ts", "../api/src"].map((p) => NodePath.join(root, p))
  const builtAt = NodeFs.existsSync(built) ? NodeFs.statSync(built).mtimeMs : 0
  return Math.max(...sources.map(newest)) > builtAt
}

const acquire = async () => {
  for (;;) {
    try {
      NodeFs.mkdirSync(lock)
      return
    } catch {
      try {
        if (Date.now() - NodeFs.statSync(lock).mtimeMs > STALE_LOCK_MILLIS) NodeFs.rmSync(lock, { recursive: true, force: true })
      } catch {
        // released meanwhile
      }
      await sleep(250)
    }
  }
}

export default async function setup() {
  if (!isStale()) return
  await acquire()
  try {
    // Another run may have built it while this one waited.
    if (!isStale()) return
    const next = NodePath.join(root, `.dist-next-${process.pid}`)
    const previous = NodePath.join(root, `.dist-previous-${process.pid}`)
    const { build } = await import("vite")
    await build({
      root,
      configFile: NodePath.join(root, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: next, emptyOutDir: true }
    })
    if (NodeFs.existsSync(dist)) NodeFs.renameSync(dist, previous)
    NodeFs.renameSync(next, dist)
    NodeFs.rmSync(previous, { recursive: true, force: true })
  } finally {
    NodeFs.rmSync(lock, { recursive: true, force: true })
  }
}
