/**
 * A tool's parameters as a JSON Schema of an object (what a model is offered and what its arguments are
 * checked against), with Ajv (draft-07, the dialect function-calling APIs take). Checks of a schema an
 * organization writes, and the check of a model's arguments: models quote numbers and booleans ("41",
 * "true"), so scalar types are coerced as Ajv does, and defaults are filled in.
 */
import type { ToolParameter, ToolParameterType } from "@agentline/api/tools/Tools"
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv"
import { Either } from "effect"

export type JsonSchema = Readonly<Record<string, unknown>>

/** A parameter's name: what models accept as a property name, and what a `{{placeholder}}` can name. */
export const PARAMETER_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
/** Names the call context takes in templates (`{{initial_context.x}}`); no parameter may shadow them. */
export const CONTEXT_ROOTS: ReadonlyArray<string> = ["initial_context", "gathered_context"]
export const MAX_PARAMETERS = 50
/** The largest parameters schema (or body template) accepted, as JSON. */
export const MAX_SCHEMA_CHARS = 65_536

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const parameterSchema = (type: ToolParameterType, description: string): JsonSchema =>
  description.trim() === "" ? { type } : { type, description }

/** The reference's list of parameters as the JSON Schema the model is offered. */
export const schemaOfList = (parameters: ReadonlyArray<ToolParameter>): JsonSchema => ({
  type: "object",
  properties: Object.fromEntries(parameters.map((p) => [p.name, parameterSchema(p.type, p.description)])),
  required: parameters.filter((p) => p.required).map((p) => p.name),
  additionalProperties: false
})

const NO_PARAMETERS: JsonSchema = { type: "object", properties: {}, required: [], additionalProperties: false }

/** Whether `parameters` is the reference's list form. */
export const isParameterList = (parameters: ReadonlyArray<ToolParameter> | JsonSchema): parameters is ReadonlyArray<ToolParameter> =>
  Array.isArray(parameters)

/** The JSON Schema of a tool's `parameters` (either form); none: an object with no properties. */
export const parametersSchema = (parameters: ReadonlyArray<ToolParameter> | JsonSchema | null | undefined): JsonSchema =>
  parameters === null || parameters === undefined ? NO_PARAMETERS : isParameterList(parameters) ? schemaOfList(parameters) : parameters

/** The top-level property names of a parameters schema. */
export const propertyNames = (schema: JsonSchema): ReadonlyArray<string> => isObject(schema.properties) ? Object.keys(schema.properties) : []

/** Meta-schema checks only: compiling never happens on this instance, so it keeps no user schemas. */
const meta = new Ajv({ allErrors: true, strict: false })

const pathOf = (error: ErrorObject): string => error.instancePath.split("/").filter((s) => s !== "").join(".")

const say = (error: ErrorObject): string => {
  const at = pathOf(error)
  if (error.keyword === "required") {
    const missing = String(error.params.missingProperty)
    return `${at === "" ? missing : `${at}.${missing}`} is required`
  }
  if (error.keyword === "additionalProperties") {
    const extra = String(error.params.additionalProperty)
    return `${at === "" ? extra : `${at}.${extra}`} is not a parameter`
  }
  return `${at === "" ? "the arguments" : at} ${error.message ?? "is not valid"}`
}

const compile = (schema: JsonSchema): Either.Either<ValidateFunction, string> => {
  try {
    // A fresh instance per schema: Ajv keeps every schema it compiled (and refuses a second schema with
    // the same `$id`), so a shared one would grow with every tool and collide between organizations.
    return Either.right(new Ajv({ allErrors: true, strict: false, coerceTypes: true, useDefaults: true }).compile(schema))
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : String(error))
  }
}

/**
 * Every problem with a parameters schema an organization wrote: not a JSON Schema, not of an object,
 * property names a placeholder or a model could not use, too large, or references that cannot be
 * resolved (only local `#/...` references are).
 */
export const schemaProblems = (schema: JsonSchema): ReadonlyArray<{ readonly path: ReadonlyArray<string>; readonly message: string }> => {
  const problems: Array<{ readonly path: ReadonlyArray<string>; readonly message: string }> = []
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) {
    return [{ path: [], message: `parameters must be at most ${MAX_SCHEMA_CHARS} characters of JSON` }]
  }
  if (!meta.validateSchema(schema)) {
    // The meta-schema reports one mistake several ways (the enum, then each `anyOf` branch): the first is the clearest.
    const seen = new Set<string>()
    for (const error of meta.errors ?? []) {
      if (seen.has(error.instancePath)) continue
      seen.add(error.instancePath)
      problems.push({
        path: error.instancePath.split("/").filter((s) => s !== ""),
        message: `parameters is not a JSON Schema: ${error.instancePath || "the schema"} ${error.message ?? ""}`.trim()
      })
    }
    return problems
  }
  if (schema.type !== "object") problems.push({ path: ["type"], message: "parameters must be the JSON Schema of an object: \"type\": \"object\"" })
  if (schema.properties !== undefined && !isObject(schema.properties)) problems.push({ path: ["properties"], message: "properties must be an object" })
  const names = propertyNames(schema)
  if (names.length > MAX_PARAMETERS) problems.push({ path: ["properties"], message: `at most ${MAX_PARAMETERS} parameters are allowed, found ${names.length}` })
  for (const name of names) {
    if (!PARAMETER_NAME.test(name)) {
      problems.push({ path: ["properties", name], message: `parameter name '${name}' must be letters, digits and _ (not starting with a digit), at most 64` })
    } else if (CONTEXT_ROOTS.includes(name)) {
      problems.push({ path: ["properties", name], message: `parameter name '${name}' is reserved for the call's context` })
    }
  }
  if (problems.length === 0) {
    const compiled = compile(schema)
    if (Either.isLeft(compiled)) problems.push({ path: [], message: `parameters cannot be used: ${compiled.left}` })
  }
  return problems
}

/** Compiled argument checks by schema (as JSON): a tool called again does not compile again. */
const compiled = new Map<string, Either.Either<ValidateFunction, string>>()
const MAX_COMPILED = 256

const validatorOf = (schema: JsonSchema): Either.Either<ValidateFunction, string> => {
  const key = JSON.stringify(schema)
  const found = compiled.get(key)
  if (found !== undefined) {
    compiled.delete(key)
    compiled.set(key, found)
    return found
  }
  const made = compile(schema)
  compiled.set(key, made)
  if (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value!)
  return made
}

/**
 * A model's arguments checked against the schema: the arguments as the request will use them (scalars
 * coerced, defaults filled in), or every problem, worded for the model to correct itself.
 */
export const checkArguments = (schema: JsonSchema, args: unknown): Either.Either<Record<string, unknown>, ReadonlyArray<string>> => {
  const validator = validatorOf(schema)
  if (Either.isLeft(validator)) return Either.left([`the tool's parameters cannot be used: ${validator.left}`])
  const copy: unknown = args === undefined || args === null ? {} : structuredClone(args)
  if (!isObject(copy)) return Either.left(["the arguments must be an object"])
  if (validator.right(copy)) return Either.right(copy)
  return Either.left([...new Set((validator.right.errors ?? []).map(say))])
}
