/**
 * Vitest global setup of the dashboard's tests: the browser tests drive the built dashboard (dist/, as
 * the server serves it), so rebuild it first when a source file is newer than the build. `npm ci`
 * builds it; this keeps an edit-and-test loop honest.
 */
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"

const root = NodePath.resolve(import.meta.dirname, "..")

const newest = (path: string): number => {
  const stat = NodeFs.statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  return NodeFs.readdirSync(path).reduce((latest, entry) => Math.max(latest, newest(NodePath.join(path, entry))), stat.mtimeMs)
}

export default async function setup() {
  const built = NodePath.join(root, "dist", "index.html")
  const sources = ["src", "public", "index.html", "vite.config.ts"].map((p) => NodePath.join(root, p))
  const builtAt = NodeFs.existsSync(built) ? NodeFs.statSync(built).mtimeMs : 0
  if (Math.max(...sources.map(newest)) <= builtAt) return
  const { build } = await import("vite")
  await build({ root, configFile: NodePath.join(root, "vite.config.ts"), logLevel: "warn" })
}
