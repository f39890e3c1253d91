import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import {
  AUTH_BODY_LIMIT,
  bodyIssues,
  bodyRule,
  DEFAULT_BODY_LIMIT,
  declaredLength,
  jsonDepthExceeds,
  MAX_JSON_DEPTH,
  stringIssues,
  pathNulIssues,
  queryNulIssues,
  WORKFLOW_BODY_LIMIT
} from "../src/RequestLimits.js"

/** Nesting depth of a parsed JSON value, the obvious recursive way (the scanner must agree). */
const depthOf = (value: unknown): number =>
  Array.isArray(value)
    ? 1 + Math.max(0, ...value.map(depthOf))
    : value !== null && typeof value === "object"
    ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
    : 0

/** Random JSON with strings full of brackets, quotes and backslashes, which must not count. */
const json = FastCheck.letrec((tie) => ({
  value: FastCheck.oneof(
    { depthSize: "small", withCrossShrink: true },
    FastCheck.constantFrom(null, true, 1.5),
    FastCheck.string({ unit: FastCheck.constantFrom("[", "]", "{", "}", "\"", "\\", "a", "\u0000") }),
    FastCheck.array(tie("value"), { maxLength: 4 }),
    FastCheck.dictionary(FastCheck.string({ unit: FastCheck.constantFrom("[", "{", "\"", "\\", "k") }), tie("value"), { maxKeys: 3 })
  )
})).value

/** Every string and key with a NUL, found the recursive way, as `loc` strings. */
const nulPlaces = (value: unknown, loc: Array<string | number>): Array<string> => {
  if (typeof value === "string") return value.includes("\u0000") ? [JSON.stringify(loc)] : []
  if (Array.isArray(value)) return value.flatMap((v, i) => nulPlaces(v, [...loc, i]))
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => [...(k.includes("\u0000") ? [JSON.stringify([...loc, k])] : []), ...nulPlaces(v, [...loc, k])])
  }
  return []
}

describe("jsonDepthExceeds", () => {
  it("agrees with the depth of the parsed value, for every limit, whatever the strings hold", () => {
    FastCheck.assert(
      FastCheck.property(json, FastCheck.integer({ min: 0, max: 6 }), (value, max) => {
        expect(jsonDepthExceeds(JSON.stringify(value), max)).toBe(depthOf(value) > max)
      }),
      { numRuns: 500 }
    )
  })

  it("handles 100,000 levels without recursion", () => {
    expect(jsonDepthExceeds("[".repeat(100_000), MAX_JSON_DEPTH)).toBe(true)
    expect(jsonDepthExceeds("[".repeat(MAX_JSON_DEPTH) + "]".repeat(MAX_JSON_DEPTH), MAX_JSON_DEPTH)).toBe(false)
  })
})

describe("stringIssues", () => {
  it("finds exactly the strings and keys holding a NUL, each with its location", () => {
    FastCheck.assert(
      FastCheck.property(json, (value) => {
        const found = stringIssues(value, ["body"]).map((issue) => JSON.stringify(issue.loc))
        expect([...found].sort()).toEqual(nulPlaces(value, ["body"]).sort())
      }),
      { numRuns: 500 }
    )
  })

  it("names the issue so a client can tell it from other validation errors", () => {
    expect(stringIssues({ name: "a\u0000b" }, ["body"])).toEqual([
      { loc: ["body", "name"], msg: "text must not contain NUL characters (\\u0000)", type: "string_nul", input: "a\u0000b", ctx: {} }
    ])
  })
})

describe("lone surrogates", () => {
  /** The oracle: `encodeURIComponent` throws on exactly the strings that are not well-formed UTF-16. */
  const wellFormed = (text: string) => {
    try {
      encodeURIComponent(text)
      return true
    } catch {
      return false
    }
  }

  const noNul = (maxLength: number) => FastCheck.string({ unit: "binary", maxLength }).filter((s) => !s.includes("\u0000"))

  it("a string is refused exactly when it holds a surrogate without its pair", () => {
    FastCheck.assert(
      FastCheck.property(noNul(8), noNul(4), (text, key) => {
        const found = stringIssues({ [key]: text }, ["body"]).map((issue) => issue.loc.join("."))
        const expected = [...(wellFormed(key) ? [] : [`body.${key}`]), ...(wellFormed(text) ? [] : [`body.${key}`])]
        expect(found).toEqual(expected)
      }),
      { numRuns: 1000 }
    )
  })

  it("in a JSON body only through escapes; a proper pair is an emoji and passes", () => {
    expect(bodyIssues(`{"a":["x","\\ud800"],"\\udc00":1}`, "application/json").map((i) => [i.loc, i.type])).toEqual([
      [["body", "\udc00"], "string_unpaired_surrogate"],
      [["body", "a", 1], "string_unpaired_surrogate"]
    ])
    expect(bodyIssues(`{"a":"\\ud83d\\ude00 \\uD83D\\uDE00"}`, "application/json")).toEqual([])
    expect(bodyIssues(`{"a":"\\\\ud800"}`, "application/json")).toEqual([])
  })
})

describe("bodyIssues", () => {
  it("too deep comes first and alone", () => {
    expect(bodyIssues(`{"a":${"[".repeat(MAX_JSON_DEPTH + 1)}"\\u0000"`, "application/json").map((i) => i.type)).toEqual(["json_too_deep"])
  })

  it("a NUL escape in JSON, a raw NUL in text that is not JSON, a NUL in a form field", () => {
    expect(bodyIssues(`{"a":["x","\\u0000"]}`, "application/json").map((i) => i.loc)).toEqual([["body", "a", 1]])
    expect(bodyIssues("not json \u0000", "text/plain").map((i) => i.loc)).toEqual([["body"]])
    expect(bodyIssues("CallSid=CA1&Status=comp%00leted", "application/x-www-form-urlencoded; charset=utf-8").map((i) => i.loc)).toEqual([
      ["body", "Status"]
    ])
  })

  it("an escaped backslash before u0000 is text, not a NUL; malformed JSON is left to the endpoint", () => {
    expect(bodyIssues(`{"a":"\\\\u0000"}`, "application/json")).toEqual([])
    expect(bodyIssues(`{"a":`, "application/json")).toEqual([])
  })
})

describe("URL and route rules", () => {
  it("NULs in the path and the query", () => {
    expect(pathNulIssues("/api/v1/public/agent/a%00b").map((i) => i.loc)).toEqual([["path"]])
    expect(pathNulIssues("/api/v1/public/agent/%E0%A4%A")).toEqual([]) // undecodable: left to routing
    expect(queryNulIssues(new URLSearchParams("a=1&b=x%00&c%00=2")).map((i) => i.loc)).toEqual([["query", "b"], ["query", "c\u0000"]])
  })

  it("each route's body rule", () => {
    expect(bodyRule("PUT", "/api/v1/storage/upload/1/contacts/x.csv", 123)).toEqual({ _tag: "Streamed", maxBytes: 123 })
    expect(bodyRule("POST", "/api/v1/auth/login", 123)).toEqual({ _tag: "Buffered", maxBytes: AUTH_BODY_LIMIT })
    expect(bodyRule("PUT", "/api/v1/workflow/7", 123)).toEqual({ _tag: "Buffered", maxBytes: WORKFLOW_BODY_LIMIT })
    expect(bodyRule("POST", "/api/v1/workflow/create/definition", 123)).toEqual({ _tag: "Buffered", maxBytes: WORKFLOW_BODY_LIMIT })
    expect(bodyRule("POST", "/api/v1/campaign/create", 123)).toEqual({ _tag: "Buffered", maxBytes: DEFAULT_BODY_LIMIT })
  })

  it("Content-Length: absent, a length, or not a length", () => {
    expect(declaredLength(undefined)).toBeUndefined()
    expect(declaredLength("1024")).toBe(1024)
    expect(declaredLength("-1")).toBeNaN()
    expect(declaredLength("1e9")).toBeNaN()
  })
})
