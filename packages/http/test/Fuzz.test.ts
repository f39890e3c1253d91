/**
 * Random requests never produce a 500: for every endpoint of the API, bodies derived from its payload
 * Schema with Effect's Arbitrary (valid-looking), the same with a NUL character put into one of their
 * strings or keys, JSON nested far deeper than allowed, bodies larger than any route takes, and random
 * junk, with random path parameters (NULs among them), on both databases (a NUL fails only PostgreSQL).
 */
import { HttpApi } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck, Schema } from "effect"
import { AgentlineApi } from "@agentline/api/Api"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"
import { MAX_JSON_DEPTH, WORKFLOW_BODY_LIMIT } from "../src/RequestLimits.js"

interface Target {
  readonly method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE"
  readonly path: string
  readonly payload: Schema.Schema.Any | undefined
}

const targets: Array<Target> = []
HttpApi.reflect(AgentlineApi as any, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => {
    const e = endpoint as any
    targets.push({ method: e.method, path: e.path, payload: e.payloadSchema._tag === "Some" ? e.payloadSchema.value : undefined })
  }
})

const arbitraryOf = (schema: Schema.Schema.Any | undefined): FastCheck.Arbitrary<unknown> | undefined => {
  if (!schema) return undefined
  try {
    return Arbitrary.make(schema as Schema.Schema<unknown, unknown, never>) as FastCheck.Arbitrary<unknown>
  } catch {
    return undefined
  }
}

/**
 * `value` with a NUL put into its `pick`-th string or object key (counting depth first); a value without
 * either becomes an object with a NUL key.
 */
const withNul = (value: unknown, pick: number): unknown => {
  let seen = 0
  let count = 0
  const countStrings = (v: unknown): void => {
    if (typeof v === "string") count++
    else if (Array.isArray(v)) v.forEach(countStrings)
    else if (v !== null && typeof v === "object") Object.entries(v).forEach(([, child]) => (count++, countStrings(child)))
  }
  countStrings(value)
  if (count === 0) return { ["\u0000"]: value ?? null }
  const target = pick % count
  const inject = (s: string) => (seen++ === target ? `${s.slice(0, 1)}\u0000${s.slice(1)}` : s)
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return inject(v)
    if (Array.isArray(v)) return v.map(walk)
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([key, child]) => [inject(key), walk(child)]))
    return v
  }
  return walk(value)
}

const hostile = FastCheck.oneof(
  // far deeper than allowed, in arrays or objects, valid JSON or cut short
  FastCheck.tuple(FastCheck.integer({ min: MAX_JSON_DEPTH + 1, max: 6_000 }), FastCheck.boolean(), FastCheck.boolean()).map(([depth, arrays, closed]) => ({
    raw: (arrays ? "[".repeat(depth) : "{\"a\":".repeat(depth) + "1") + (closed ? (arrays ? "]" : "}").repeat(depth) : "")
  })),
  // larger than any route takes (and not JSON at all past the first bytes)
  FastCheck.constantFrom({ raw: "{\"name\":\"" + "x".repeat(WORKFLOW_BODY_LIMIT + 1) + "\"}" }),
  FastCheck.string({ unit: "binary", maxLength: 20 }).map((s) => ({ raw: `{"name":${JSON.stringify(`\u0000${s}`)}}` }))
)

const junk = FastCheck.oneof(
  FastCheck.anything(),
  FastCheck.json().map((j) => ({ raw: j })),
  FastCheck.string().map((s) => ({ raw: s })),
  FastCheck.constantFrom({ raw: "{" }, { raw: "" }, { raw: "null" }, { raw: "[1,2" }, { raw: "\u0000" })
)

const pathParam = FastCheck.oneof(
  FastCheck.integer({ min: -5, max: 100 }).map(String),
  FastCheck.constantFrom("abc", "0", "1.5", "%20", "9999999999999", "%00", "a%00b")
)

for (const dialect of dialects) layer(TestApp(dialect), { timeout: "300 seconds" })(`random requests [${dialect}]`, (it) => {
  it.effect("no endpoint answers 500 to any body or path parameter", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      expect(targets.length).toBeGreaterThan(40)
      const failures: Array<string> = []
      for (const target of targets) {
        const derived = arbitraryOf(target.payload)
        const bodies = derived
          ? FastCheck.oneof(
            derived.map((b) => ({ json: b })),
            FastCheck.tuple(derived, FastCheck.nat()).map(([b, pick]) => ({ json: withNul(b, pick) })),
            hostile,
            junk
          )
          : FastCheck.oneof(hostile, junk)
        const samples = FastCheck.sample(FastCheck.tuple(bodies, pathParam, pathParam), { numRuns: 12, seed: targets.indexOf(target) + 1 })
        for (const [body, p1, p2] of samples) {
          let n = 0
          const path = target.path.replace(/:[a-z_]+/g, () => (n++ === 0 ? p1 : p2))
          const options: Parameters<typeof call>[2] = { apiKey: org.apiKey }
          const raw = body !== null && typeof body === "object" && "raw" in (body as any) ? String((body as any).raw) : undefined
          const json = body !== null && typeof body === "object" && "json" in (body as any) ? (body as any).json : body
          const reply = yield* (target.method === "GET"
            ? call(target.method, path, options)
            : raw !== undefined
            ? call(target.method, path, { ...options, raw })
            : call(target.method, path, { ...options, body: json === undefined ? null : json }).pipe(
              Effect.catchAllDefect(() => call(target.method, path, { ...options, raw: "{}" }))
            ))
          if (reply.status >= 500) failures.push(`${target.method} ${path} ${JSON.stringify(body).slice(0, 200)} → ${reply.status} ${JSON.stringify(reply.body)}`)
          expect(typeof reply.body === "object" || reply.status === 200, `${target.method} ${path} answered a non-JSON error`).toBe(true)
        }
      }
      expect(failures).toEqual([])
      // Twelve requests per operation, one after another: the run grows with the API.
    }), 180_000)
})
