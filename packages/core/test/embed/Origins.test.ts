import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck, Option } from "effect"
import { formatOriginPattern, originAllowed, parseAllowedOrigins, parseOriginPattern } from "../../src/embed/Origins.js"

const label = FastCheck.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).filter((l) => !l.startsWith("www"))
const domain = FastCheck.tuple(label, FastCheck.constantFrom("com", "org", "example", "co.uk")).map(([name, tld]) => `${name}.${tld}`)
const port = FastCheck.integer({ min: 1, max: 65535 })

const normalized = (entries: ReadonlyArray<string>) => Either.getOrThrow(parseAllowedOrigins(entries))

describe("allowed origins", () => {
  it("normalizes entries: lowercase, punycode, no trailing slash, duplicates dropped", () => {
    expect(normalized(["https://Shop.Example.com/", "shop.example.com", "https://shop.example.com", "*.Example.org", "localhost:5173", "http://127.0.0.1:8080", "https://bücher.de", "*"]))
      .toEqual(["https://shop.example.com", "shop.example.com", "*.example.org", "localhost:5173", "http://127.0.0.1:8080", "https://xn--bcher-kva.de", "*"])
  })

  it("refuses what is not an origin, each entry with its reason", () => {
    const problems = Option.getOrThrow(Either.getLeft(parseAllowedOrigins([
      "https://example.com/page",
      "ftp://example.com",
      "*.com",
      "exa*mple.com",
      "",
      "https://example.com:70000",
      "https://user@example.com"
    ])))
    expect(problems.map((p) => p.index)).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(problems[0]!.reason).toContain("no path")
    expect(problems[1]!.reason).toContain("only http and https")
    expect(problems[2]!.reason).toContain("too wide")
  })

  it("refuses an empty list and a list too long", () => {
    expect(Either.isLeft(parseAllowedOrigins([]))).toBe(true)
    expect(Either.isLeft(parseAllowedOrigins(Array.from({ length: 101 }, (_, i) => `site${i}.example.com`)))).toBe(true)
  })

  it.prop("normalizing is idempotent", [FastCheck.oneof(domain, FastCheck.tuple(domain, port).map(([d, p]) => `https://${d.toUpperCase()}:${p}/`), domain.map((d) => `*.${d}`))], ([entry]) => {
    const once = normalized([entry])
    expect(normalized(once)).toEqual(once)
  })

  it.prop("a bare domain matches itself and its www. twin, over http and https, on any port", [domain, port], ([d, p]) => {
    const allowed = normalized([d])
    for (const origin of [`https://${d}`, `http://${d}`, `https://www.${d}`, `https://${d}:${p}`]) expect(originAllowed(origin, allowed)).toBe(true)
  })

  it.prop("a domain does not match look-alikes: other suffixes, prefixes, parents, subdomains", [domain, label], ([d, other]) => {
    const allowed = normalized([`https://${d}`])
    for (const origin of [`https://${d}.evil.com`, `https://${other}${d}`, `https://${other}.${d}`, `https://${d.split(".").slice(1).join(".")}`, `http://${d}`]) {
      expect(originAllowed(origin, allowed)).toBe(false)
    }
  })

  it.prop("a wildcard matches the domain and its subdomains only", [domain, label], ([d, sub]) => {
    const allowed = normalized([`*.${d}`])
    expect(originAllowed(`https://${d}`, allowed)).toBe(true)
    expect(originAllowed(`https://${sub}.${d}`, allowed)).toBe(true)
    expect(originAllowed(`https://${sub}.${sub}.${d}`, allowed)).toBe(true)
    expect(originAllowed(`https://${sub}${d}`, allowed)).toBe(false)
    expect(originAllowed(`https://${d}.${sub}.com`, allowed)).toBe(false)
  })

  it.prop("a port in the entry must match, the scheme's default port counting", [domain, port], ([d, p]) => {
    const allowed = normalized([`https://${d}:${p}`])
    expect(originAllowed(`https://${d}:${p}`, allowed)).toBe(true)
    expect(originAllowed(`https://${d}:${p === 65535 ? 1 : p + 1}`, allowed)).toBe(false)
    expect(originAllowed(`https://${d}`, allowed)).toBe(p === 443)
  })

  it("a missing, opaque or malformed origin matches only *", () => {
    for (const origin of [undefined, "null", "file://", "not a url", "https://example.com/path"]) {
      expect(originAllowed(origin, normalized(["example.com"]))).toBe(false)
      expect(originAllowed(origin, normalized(["*"]))).toBe(true)
    }
  })

  it("IP addresses and localhost match exactly (no www. twin)", () => {
    expect(originAllowed("http://127.0.0.1:5173", normalized(["127.0.0.1"]))).toBe(true)
    expect(originAllowed("http://localhost:3000", normalized(["localhost:3000"]))).toBe(true)
    expect(originAllowed("http://localhost:3001", normalized(["localhost:3000"]))).toBe(false)
    expect(originAllowed("http://[::1]:8080", normalized(["http://[::1]:8080"]))).toBe(true)
  })

  it("formats every pattern it parses back to an entry that parses the same", () => {
    for (const entry of ["*", "https://a.example.com:8443", "*.example.com", "http://[::1]"]) {
      const pattern = Either.getOrThrow(parseOriginPattern(entry))
      expect(Either.getOrThrow(parseOriginPattern(formatOriginPattern(pattern)))).toEqual(pattern)
    }
  })
})
