/**
 * Random requests never produce a 500: for every endpoint of the API, bodies derived from its payload
 * Schema with Effect's Arbitrary (valid-looking), and random junk, with random path parameters.
 */
import { HttpApi } from "@effect/platform"
import { expect, layer } from "@effect/vitest"
import { Arbitrary, Effect, FastCheck, Schema } from "effect"
import { AgentlineApi } from "../src/Api.js"
import { call, seedOrganization, TestApp } from "./Harness.js"

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

const junk = FastCheck.oneof(
  FastCheck.anything(),
  FastCheck.json().map((j) => ({ raw: j })),
  FastCheck.string().map((s) => ({ raw: s })),
  FastCheck.constantFrom({ raw: "{" }, { raw: "" }, { raw: "null" }, { raw: "[1,2" }, { raw: "\u0000" })
)

const pathParam = FastCheck.oneof(FastCheck.integer({ min: -5, max: 100 }).map(String), FastCheck.constantFrom("abc", "0", "1.5", "%20", "9999999999999"))

layer(TestApp("sqlite"), { timeout: "180 seconds" })("random requests", (it) => {
  it.effect("no endpoint answers 500 to any body or path parameter", () =>
    Effect.gen(function*() {
      const org = yield* seedOrganization()
      expect(targets.length).toBeGreaterThan(40)
      const failures: Array<string> = []
      for (const target of targets) {
        const derived = arbitraryOf(target.payload)
        const bodies = derived ? FastCheck.oneof(derived.map((b) => ({ json: b })), junk) : junk
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
    }))
})
