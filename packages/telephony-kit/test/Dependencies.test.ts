/**
 * `@agentline/telephony-kit` is what a third-party adapter depends on: it must not pull in Agentline's
 * core, a database driver or the server. Its declared dependencies and every import of its sources are
 * checked here, so adding one (directly or through another `@agentline/*` package) fails CI. The test
 * runner is a peer dependency, optional: only the contract suite (`testing/Contract*`) imports it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const root = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "..")
const DEPENDENCIES = ["@effect/platform", "effect", "ws"]
const PEERS = ["@effect/vitest", "vitest"]

const sources = (dir: string): Array<string> =>
  NodeFs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** The package an import specifier names (`@scope/name/sub` → `@scope/name`); undefined for a relative one or Node's own. */
const packageOf = (specifier: string): string | undefined => {
  if (specifier.startsWith(".") || specifier.startsWith("node:")) return undefined
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/** Every package the sources import, with the files that import it. */
const imported = () => {
  const found = new Map<string, Array<string>>()
  for (const file of sources(NodePath.join(root, "src"))) {
    const text = NodeFs.readFileSync(file, "utf8")
    for (const match of text.matchAll(/(?<![\w/."'-])(?:from|import)\s*\(?\s*"([^"]+)"/g)) {
      const name = packageOf(match[1]!)
      // The kit naming itself (its examples do) is no dependency.
      if (name !== undefined && name !== "@agentline/telephony-kit") found.set(name, [...(found.get(name) ?? []), NodePath.relative(root, file)])
    }
  }
  return found
}

describe("@agentline/telephony-kit dependencies", () => {
  it("declares only effect, @effect/platform and ws; the test runner as an optional peer", () => {
    const manifest = JSON.parse(NodeFs.readFileSync(NodePath.join(root, "package.json"), "utf8"))
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(DEPENDENCIES)
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual(PEERS)
    for (const peer of PEERS) expect(manifest.peerDependenciesMeta?.[peer]?.optional).toBe(true)
    expect(manifest.optionalDependencies ?? {}).toEqual({})
  })

  it("its sources import only those (nothing of Agentline but itself); the runner only from the contract suite", () => {
    const found = imported()
    expect([...found.keys()].filter((name) => ![...DEPENDENCIES, ...PEERS].includes(name))).toEqual([])
    for (const peer of PEERS) {
      for (const file of found.get(peer) ?? []) expect(file).toMatch(/^src\/testing\/Contract[A-Za-z]*\.ts$/)
    }
    expect([...found.keys()].sort()).toEqual(["@effect/platform", "@effect/vitest", "effect", "ws"])
  })

  it("the port's modules need neither ws nor the test runner", () => {
    for (const [name, files] of imported()) {
      if (name === "ws" || PEERS.includes(name)) for (const file of files) expect(file.startsWith("src/testing/")).toBe(true)
    }
  })
})
