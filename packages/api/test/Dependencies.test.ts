/**
 * `@agentline/api` is what a typed client installs: it must not pull in a database driver or the
 * server. Its declared dependencies and every import of its sources are checked here, so adding one
 * (directly or through another `@agentline/*` package) fails CI.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..")
const ALLOWED = ["@effect/platform", "effect"]

const sources = (dir: string): Array<string> =>
  NodeFs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** The package an import specifier names (`@scope/name/sub` → `@scope/name`), or undefined for a relative one. */
const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

describe("@agentline/api dependencies", () => {
  it("declares only effect and @effect/platform", () => {
    const manifest = JSON.parse(NodeFs.readFileSync(NodePath.join(root, "package.json"), "utf8"))
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(ALLOWED)
    expect(manifest.peerDependencies ?? {}).toEqual({})
    expect(manifest.optionalDependencies ?? {}).toEqual({})
  })

  it("its sources import only effect, @effect/platform and each other", () => {
    const imported = new Map<string, Array<string>>()
    for (const file of sources(NodePath.join(root, "src"))) {
      const text = NodeFs.readFileSync(file, "utf8")
      for (const match of text.matchAll(/(?<![\w/."'-])(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
        const name = packageOf(match[1]!)
        if (name !== undefined) imported.set(name, [...(imported.get(name) ?? []), NodePath.relative(root, file)])
      }
    }
    const foreign = [...imported].filter(([name]) => !ALLOWED.includes(name))
    expect(foreign).toEqual([])
    expect([...imported.keys()].sort()).toEqual(ALLOWED)
  })
})
