/**
 * Core's folders are layered: a folder imports only folders of a lower layer (and its own files), so
 * the folders form no loop and each can be read knowing only what lies below it. Three bands:
 *
 * - generic (0–1): time, JSON, transactions, validation issues, public URLs; crypto, audio, blob storage
 *   (the telephony port, media types and fake-carrier blocks are `@agentline/telephony-kit`'s, below all of core);
 * - domain records (2–6): organizations, users, workflows, telephony configurations, campaigns, runs, ...;
 * - processes (7–9): the dispatcher, webhook delivery, media streams, the calls of providers.
 *
 * The table says where each folder sits; this test reads every import of `src` and fails on one that
 * goes sideways or up, and on a folder missing from the table (a new folder takes its place here).
 * It also keeps core free of adapters: `src` imports only core's own dependencies; the adapters core's
 * tests use (`@agentline/sql`, ...) are dev dependencies, never imported by `src`.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

const src = NodePath.resolve(NodePath.dirname(fileURLToPath(import.meta.url)), "../src")

/** `.` is the files directly in `src`. */
const LAYERS: Readonly<Record<string, number>> = {
  // generic
  ".": 0,
  "crypto": 1,
  "audio": 1,
  "blobs": 1,
  // domain records
  "organizations": 2,
  "credentials": 2,
  "uploads": 2,
  "telephony": 2,
  "voice": 2,
  "workflows": 2,
  "text-chat": 2,
  "users": 3,
  "recordings": 3,
  "phone-numbers": 3,
  "webhooks": 3,
  "api-keys": 4,
  "runs": 4,
  "tools": 4,
  "campaigns": 5,
  "embed": 5,
  "transfers": 5,
  "do-not-call": 6,
  // processes
  "dispatcher": 7,
  "webhook-delivery": 7,
  "media": 8,
  "calls": 9,
  "web-calls": 9
}

const sources = (dir: string): Array<string> =>
  NodeFs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = NodePath.join(dir, entry.name)
    return entry.isDirectory() ? sources(path) : entry.name.endsWith(".ts") ? [path] : []
  })

/** The folder of a file given relative to `src`: its first path segment, or `.` for a file directly in `src`. */
const folderOf = (file: string): string => {
  const parts = file.split("/")
  return parts.length === 1 ? "." : parts[0]!
}

/** Every relative import of every source file: `[importing file, imported file]`, both relative to `src`. */
const imports = (): Array<readonly [string, string]> =>
  sources(src).flatMap((file) =>
    [...NodeFs.readFileSync(file, "utf8").matchAll(/(?<![\w/."'-])(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)].map((match) =>
      [relative(file), relative(NodePath.resolve(NodePath.dirname(file), match[1]!))] as const
    )
  )

const relative = (file: string) => NodePath.relative(src, file).split(NodePath.sep).join("/")

/** The imports that go sideways or up: into another folder of the same or a higher layer. */
const violations = (edges: ReadonlyArray<readonly [string, string]>): Array<string> =>
  edges.flatMap(([from, to]) => {
    const a = folderOf(from)
    const b = folderOf(to)
    return a === b || LAYERS[b]! < LAYERS[a]! ? [] : [`${from} (${a}, layer ${LAYERS[a]}) imports ${to} (${b}, layer ${LAYERS[b]})`]
  })

describe("core's folder layers", () => {
  it("every folder of src has its layer, and every layer of the table a folder", () => {
    const folders = new Set(sources(src).map((file) => folderOf(relative(file))))
    expect([...folders].filter((folder) => LAYERS[folder] === undefined)).toEqual([])
    expect(Object.keys(LAYERS).filter((folder) => !folders.has(folder))).toEqual([])
  })

  it("the rule: down is allowed, sideways and up are not, within a folder anything goes", () => {
    expect(violations([["dispatcher/Attempts.ts", "telephony/OutboundRouting.js"], ["audio/Pcm.ts", "Time.js"], ["telephony/Secrets.ts", "telephony/TelephonyRegistry.js"]]))
      .toEqual([])
    expect(violations([["telephony/TelephonyConfigs.ts", "dispatcher/DispatchRepo.js"]])).toEqual([
      "telephony/TelephonyConfigs.ts (telephony, layer 2) imports dispatcher/DispatchRepo.js (dispatcher, layer 7)"
    ])
    expect(violations([["credentials/Credentials.ts", "telephony/Secrets.js"], ["Time.ts", "audio/Pcm.js"]])).toHaveLength(2)
  })

  it("a folder imports only its own files and folders of lower layers", () => {
    const all = imports()
    expect(all.length).toBeGreaterThan(250)
    expect(all).toContainEqual(["calls/OutboundRoutes.ts", "telephony/OutboundRouting.js"])
    expect(violations(all)).toEqual([])
  })

  it("src imports only the packages core depends on (node builtins aside), never its dev dependencies", () => {
    const manifest = JSON.parse(NodeFs.readFileSync(NodePath.join(src, "..", "package.json"), "utf8"))
    const allowed = new Set(Object.keys(manifest.dependencies ?? {}))
    const imported = new Set(
      sources(src).flatMap((file) =>
        [...NodeFs.readFileSync(file, "utf8").matchAll(/(?<![\w/."'-])(?:from|import)\s*\(?\s*"([^".][^"]*)"/g)].map((match) => {
          const parts = match[1]!.split("/")
          return match[1]!.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
        })
      )
    )
    const foreign = [...imported].filter((name) => !allowed.has(name) && !name.startsWith("node:")).sort()
    expect(foreign).toEqual([])
    expect(Object.keys(manifest.devDependencies ?? {}).filter((name) => imported.has(name))).toEqual([])
    expect(imported.has("effect")).toBe(true)
  })
})
