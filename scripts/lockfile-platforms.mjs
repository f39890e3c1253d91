// Keeps package-lock.json acceptable to `npm ci` on every platform.
//
// The registry mirror these machines use serves only the Linux x64 build of packages that ship one
// build per platform (rollup, msgpackr-extract). `npm install` then drops the other platforms'
// optional packages from the lockfile, and `npm ci` refuses a lockfile that lacks them ("Missing:
// @rollup/rollup-darwin-arm64 from lock file"). This script adds each missing optional platform
// package back with its version and the os/cpu/libc its name declares, which is what a lockfile
// written against the full registry holds (less the integrity hash, which npm checks on download).
// Run it after any `npm install` that rewrites the lockfile: `node scripts/lockfile-platforms.mjs`.
import { readFileSync, writeFileSync } from "node:fs"

const path = new URL("../package-lock.json", import.meta.url)
const lock = JSON.parse(readFileSync(path, "utf8"))
const packages = lock.packages

const OS = ["android", "darwin", "freebsd", "linux", "openbsd", "openharmony", "win32", "sunos", "netbsd", "aix"]
const CPU = ["arm64", "arm", "x64", "ia32", "loong64", "ppc64", "riscv64", "s390x", "mips64el"]

const platformOf = (name) => {
  const parts = name.split("/").pop().split("-")
  const os = parts.find((p) => OS.includes(p))
  const cpu = parts.find((p) => CPU.includes(p))
  const libc = parts.includes("musl") || parts.includes("musleabihf") ? "musl"
    : parts.includes("gnu") || parts.includes("gnueabihf") ? "glibc" : undefined
  return { os, cpu, libc }
}

let added = 0
for (const [location, entry] of Object.entries(packages)) {
  for (const [dependency, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = `${location ? `${location}/` : ""}node_modules/${dependency}`
    if (packages[nested] || packages[`node_modules/${dependency}`]) continue
    const { os, cpu, libc } = platformOf(dependency)
    if (!os) continue // not a per-platform build: leave it to npm
    packages[`node_modules/${dependency}`] = {
      version: String(spec).replace(/^[\^~=]/, ""),
      ...(entry.dev ? { dev: true } : {}),
      ...(entry.devOptional ? { devOptional: true } : {}),
      optional: true,
      os: [os],
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {})
    }
    added++
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b)))
)
writeFileSync(path, JSON.stringify(lock, null, 2) + "\n")
console.log(`lockfile-platforms: ${added} platform package(s) added`)
