import { Errors } from "@agentline/api"
import { describe, expect, it } from "vitest"
import { describeProblem } from "../src/api/errors.js"
import { readCookie } from "../src/api/client.js"
import { safeNext } from "../src/paths.js"

describe("describeProblem", () => {
  it("lists every field of a 422 without the location part", () => {
    const error = new Errors.ValidationError({
      detail: [
        { loc: ["body", "email"], msg: "must be an email address such as ada@example.com", type: "value_error", input: "x", ctx: {} },
        { loc: ["body", "nodes", 2, "prompt"], msg: "is required", type: "missing", input: null, ctx: {} }
      ]
    })
    expect(describeProblem(error)).toEqual({
      kind: "validation",
      message: "2 fields need fixing.",
      fields: [
        { field: "email", message: "must be an email address such as ada@example.com" },
        { field: "nodes.2.prompt", message: "is required" }
      ]
    })
  })

  it("lists the problems that stop a publish, each with its node or edge", () => {
    const error = new Errors.DefinitionRejected({
      detail: {
        is_valid: false,
        errors: [
          { kind: "node", id: "start", field: "greeting_recording_id", message: "recording 'hello' does not exist" },
          { kind: "workflow", id: null, field: "nodes", message: "a startCall node is required" }
        ]
      }
    })
    expect(describeProblem(error)).toEqual({
      kind: "validation",
      message: "2 problems must be fixed first.",
      fields: [
        { field: "node start.greeting_recording_id", message: "recording 'hello' does not exist" },
        { field: "", message: "a startCall node is required" }
      ]
    })
  })

  it("tells a pending password change from other 403s", () => {
    expect(describeProblem(new Errors.Forbidden({ detail: "password_change_required" })).kind).toBe("password-change-required")
    expect(describeProblem(new Errors.Forbidden({ detail: "Only administrators can create users" }))).toEqual({
      kind: "forbidden",
      message: "Only administrators can create users",
      fields: []
    })
  })

  it("keeps the API's message for 401, 404, 409 and 429", () => {
    expect(describeProblem(new Errors.Unauthorized({ detail: "Invalid or expired token" })).kind).toBe("unauthorized")
    expect(describeProblem(new Errors.NotFound({ detail: "No agent 7" })).message).toBe("No agent 7")
    expect(describeProblem(new Errors.Conflict({ detail: "taken" })).kind).toBe("conflict")
    expect(describeProblem(new Errors.TooManyRequests({ detail: "slow down" })).kind).toBe("rate-limited")
  })

  it("says the server could not be reached on a transport failure, and something went wrong otherwise", () => {
    expect(describeProblem({ _tag: "RequestError", reason: "Transport" }).kind).toBe("network")
    expect(describeProblem({ _tag: "ResponseError", response: { status: 502 } }).message).toBe(
      "The server answered unexpectedly (HTTP 502)."
    )
    expect(describeProblem(new Error("boom")).message).toBe("Something went wrong: boom")
    expect(describeProblem(undefined).message).toBe("Something went wrong.")
  })
})

describe("describeProblem of a form's values the API's schema refuses", () => {
  it("lists each field with the schema's message", async () => {
    const { CreateApiKeyRequest } = await import("@agentline/api/api-keys/ApiKey")
    const { Effect, Either } = await import("effect")
    const { decodePayload } = await import("../src/api/client.js")
    const result = Effect.runSync(Effect.either(decodePayload(CreateApiKeyRequest, { name: "   " })))
    if (Either.isRight(result)) throw new Error("a name of spaces must be refused")
    expect(describeProblem(result.left)).toEqual({
      kind: "validation",
      message: "One field needs fixing.",
      fields: [{ field: "name", message: "name must not be empty" }]
    })
  })

  it("lists every field at fault, and decodes valid values as the server will (trimmed, lowercased)", async () => {
    const { CreateUserRequest } = await import("@agentline/api/users/User")
    const { Effect, Either } = await import("effect")
    const { decodePayload } = await import("../src/api/client.js")
    const bad = Effect.runSync(Effect.either(decodePayload(CreateUserRequest, { email: "nobody", password: "short" })))
    if (Either.isRight(bad)) throw new Error("must be refused")
    expect(describeProblem(bad.left).fields).toEqual([
      { field: "email", message: "must be an email address such as ada@example.com" },
      { field: "password", message: "must be at least 8 characters" }
    ])
    const good = Effect.runSync(decodePayload(CreateUserRequest, { email: "  Ada@Example.COM ", password: "long enough" }))
    expect(good).toEqual({ email: "ada@example.com", password: "long enough", role: "member" })
  })
})

describe("readCookie", () => {
  it("finds a cookie among others and decodes it", () => {
    expect(readCookie("agentline_csrf", "a=1; agentline_csrf=abc%3D; b=2")).toBe("abc=")
    expect(readCookie("agentline_csrf", "xagentline_csrf=1")).toBeUndefined()
    expect(readCookie("agentline_csrf", "")).toBeUndefined()
  })
})

describe("safeNext", () => {
  it("keeps paths of this site only", () => {
    expect(safeNext("/agents/3?tab=graph")).toBe("/agents/3?tab=graph")
    expect(safeNext("//evil.example/")).toBe("/")
    expect(safeNext("/\\evil.example")).toBe("/")
    expect(safeNext("https://evil.example/")).toBe("/")
    expect(safeNext(null)).toBe("/")
  })
})
