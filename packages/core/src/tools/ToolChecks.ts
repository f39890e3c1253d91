/**
 * The checks of a tool's definition that need nothing but the definition (pure): parameters that are a
 * JSON Schema of an object, placeholders that name a parameter, URLs this server will call, header
 * names and values. Whether its credential and recording exist is the service's to ask.
 *
 * Each problem says where in the request body it is (`["definition", "config", "url"]`).
 */
import type { HttpApiConfig, McpToolConfig, ToolDefinition, ToolParameter } from "@agentline/api/tools/Tools"
import { Either } from "effect"
import { refusedTarget } from "../OutboundTargets.js"
import type { ToolIssue } from "./Errors.js"
import {
  CONTEXT_ROOTS,
  isParameterList,
  MAX_PARAMETERS,
  MAX_SCHEMA_CHARS,
  PARAMETER_NAME,
  parametersSchema,
  propertyNames,
  schemaProblems
} from "./ParameterSchemas.js"
import { isContextName, placeholderNames, sendsBody, urlTemplateProblem } from "./ToolRequests.js"

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
const HEADER_VALUE = /^[^\u0000-\u0008\u000a-\u001f\u007f]*$/
export const MAX_HEADERS = 50

const CONFIG = ["definition", "config"] as const

/** Why the operator's rule refuses a target, worded for the person who wrote the URL. */
export const refusedTargetMessage = (reason: string) =>
  `url is refused: ${reason}; tools call public addresses only (the operator can allow private ones with AGENTLINE_WEBHOOK_ALLOW_PRIVATE=true)`

const nameProblem = (name: string): string | undefined =>
  !PARAMETER_NAME.test(name)
    ? `'${name}' must be letters, digits and _ (not starting with a digit), at most 64`
    : CONTEXT_ROOTS.includes(name)
    ? `'${name}' is reserved for the call's context`
    : undefined

const listIssues = (parameters: ReadonlyArray<ToolParameter>): Array<ToolIssue> => {
  const issues: Array<ToolIssue> = []
  if (parameters.length > MAX_PARAMETERS) {
    issues.push({ loc: [...CONFIG, "parameters"], message: `at most ${MAX_PARAMETERS} parameters are allowed`, input: parameters.length })
  }
  const seen = new Set<string>()
  parameters.forEach((p, index) => {
    const problem = nameProblem(p.name)
    if (problem !== undefined) issues.push({ loc: [...CONFIG, "parameters", index, "name"], message: `parameter name ${problem}`, input: p.name })
    else if (seen.has(p.name)) issues.push({ loc: [...CONFIG, "parameters", index, "name"], message: `parameter name '${p.name}' is used twice`, input: p.name })
    seen.add(p.name)
  })
  return issues
}

/** The names an HTTP tool's placeholders may use: its parameters' and presets'. */
export const parameterNames = (config: HttpApiConfig): ReadonlyArray<string> => [
  ...propertyNames(parametersSchema(config.parameters)),
  ...(config.preset_parameters ?? []).map((p) => p.name)
]

const placeholderIssues = (template: unknown, loc: ReadonlyArray<string | number>, known: ReadonlySet<string>): Array<ToolIssue> => {
  const unknown = [...new Set(placeholderNames(template).filter((name) => !known.has(name) && !isContextName(name)))]
  if (unknown.length === 0) return []
  const names = known.size === 0 ? "this tool has no parameters" : `its parameters are ${[...known].join(", ")}`
  return [{
    loc,
    message: `${loc.at(-1)} uses ${unknown.map((n) => `{{${n}}}`).join(", ")}, which name${unknown.length === 1 ? "s" : ""} no parameter (${names}; ` +
      "the call's context is {{initial_context.<key>}} and {{gathered_context.<key>}})",
    input: template
  }]
}

const httpIssues = (config: HttpApiConfig, allowPrivate: boolean): Array<ToolIssue> => {
  const issues: Array<ToolIssue> = []
  const parameters = config.parameters
  if (parameters !== undefined && parameters !== null && isParameterList(parameters)) issues.push(...listIssues(parameters))
  else if (parameters !== undefined && parameters !== null) {
    for (const problem of schemaProblems(parameters)) {
      issues.push({ loc: [...CONFIG, "parameters", ...problem.path], message: problem.message, input: parameters })
    }
  }
  const modelNames = new Set(parameterNames({ ...config, preset_parameters: [] }))
  const presetNames = new Set<string>()
  ;(config.preset_parameters ?? []).forEach((preset, index) => {
    const loc = [...CONFIG, "preset_parameters", index]
    const problem = nameProblem(preset.name)
    if (problem !== undefined) issues.push({ loc: [...loc, "name"], message: `preset parameter name ${problem}`, input: preset.name })
    else if (modelNames.has(preset.name) || presetNames.has(preset.name)) {
      issues.push({ loc: [...loc, "name"], message: `preset parameter name '${preset.name}' is already a parameter`, input: preset.name })
    }
    presetNames.add(preset.name)
    const outside = placeholderNames(preset.value_template).filter((name) => !isContextName(name))
    if (outside.length > 0) {
      issues.push({
        loc: [...loc, "value_template"],
        message: `value_template may use the call's context only ({{initial_context.<key>}}, {{gathered_context.<key>}}), not ${
          outside.map((n) => `{{${n}}}`).join(", ")
        }`,
        input: preset.value_template
      })
    }
  })
  const known = new Set(parameterNames(config))

  const url = urlTemplateProblem(config.url)
  if (Either.isLeft(url)) issues.push({ loc: [...CONFIG, "url"], message: url.left, input: config.url })
  else {
    const refused = refusedTarget(url.right, allowPrivate)
    if (refused !== undefined) issues.push({ loc: [...CONFIG, "url"], message: refusedTargetMessage(refused), input: config.url })
  }
  issues.push(...placeholderIssues(config.url, [...CONFIG, "url"], known))

  const headers = Object.entries(config.headers ?? {})
  if (headers.length > MAX_HEADERS) issues.push({ loc: [...CONFIG, "headers"], message: `at most ${MAX_HEADERS} headers are allowed`, input: headers.length })
  for (const [name, value] of headers) {
    const loc = [...CONFIG, "headers", name]
    if (!HEADER_NAME.test(name)) issues.push({ loc, message: `header name '${name}' must be an HTTP header name (letters, digits and -)`, input: name })
    if (!HEADER_VALUE.test(value)) issues.push({ loc, message: `header ${name} must not contain line breaks or control characters`, input: value })
    issues.push(...placeholderIssues(value, loc, known))
  }

  const body = config.body_template
  if (body !== undefined && body !== null) {
    const loc = [...CONFIG, "body_template"]
    if (!sendsBody(config.method)) {
      issues.push({ loc, message: `body_template is not sent with ${config.method}: remove it, or use POST, PUT or PATCH`, input: body })
    } else if (JSON.stringify(body).length > MAX_SCHEMA_CHARS) {
      issues.push({ loc, message: `body_template must be at most ${MAX_SCHEMA_CHARS} characters of JSON`, input: null })
    } else issues.push(...placeholderIssues(body, loc, known))
  }

  if (config.customMessageType === "audio" && (config.customMessageRecordingId ?? "").trim() === "") {
    issues.push({
      loc: [...CONFIG, "customMessageRecordingId"],
      message: "customMessageRecordingId is required while customMessageType is audio (one of the organization's recordings)",
      input: config.customMessageRecordingId ?? null
    })
  }
  return issues
}

const mcpIssues = (config: McpToolConfig, allowPrivate: boolean): Array<ToolIssue> => {
  const issues: Array<ToolIssue> = []
  const refused = refusedTarget(config.url, allowPrivate)
  if (refused !== undefined) {
    issues.push({
      loc: [...CONFIG, "url"],
      message: refused.startsWith("the url") ? refused.replace("the url", "url") : refusedTargetMessage(refused),
      input: config.url
    })
  }
  const seen = new Set<string>()
  config.tools_filter.forEach((name, index) => {
    if (name.trim() === "") issues.push({ loc: [...CONFIG, "tools_filter", index], message: "tools_filter names must not be empty", input: name })
    else if (seen.has(name)) issues.push({ loc: [...CONFIG, "tools_filter", index], message: `tools_filter names '${name}' twice`, input: name })
    seen.add(name)
  })
  return issues
}

/** Every problem with a definition that the definition alone shows. */
export const definitionIssues = (definition: ToolDefinition, allowPrivate: boolean): ReadonlyArray<ToolIssue> =>
  definition.type === "http_api" ? httpIssues(definition.config, allowPrivate) : mcpIssues(definition.config, allowPrivate)
