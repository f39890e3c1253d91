import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { NotFound, ValidationError } from "../src/Errors.js"

describe("Errors", () => {
  it.effect("carry a detail message and fail as typed errors", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(new NotFound({ detail: "Campaign not found" }))
      expect(Exit.isFailure(exit)).toBe(true)
      const single = ValidationError.single(["body", "name"], "Field required", undefined, "missing")
      expect(single.detail).toEqual([{ loc: ["body", "name"], msg: "Field required", type: "missing", input: undefined, ctx: {} }])
    }))
})
