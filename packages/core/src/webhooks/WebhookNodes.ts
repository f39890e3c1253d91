/**
 * The workflow `webhook` node (the reference's post-call HTTP request): which requests an agent's
 * definition asks for once a call is over, rendered with the run's variables. Pure.
 *
 * A node's `endpoint_url`, header values and `payload_template`'s strings are templates
 * (`{{gathered_context.email}}`, `{{recording_url}}`, `{{initial_context.name | there}}`): see
 * `Template.ts`. A string that is one placeholder and nothing else becomes the value itself, so
 * `"{{gathered_context}}"` sends the object and `"{{cost_info.call_duration_seconds}}"` a number.
 */
import { renderTemplate } from "../workflows/Template.js"
import type { DirectTarget } from "./WebhooksRepo.js"

export type NodeRequest =
  | { readonly _tag: "Request"; readonly target: DirectTarget; readonly body: unknown }
  /** A node that cannot be sent, and why (reported in the run's logs). */
  | { readonly _tag: "Skipped"; readonly nodeId: string; readonly nodeName: string; readonly reason: string }

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const
type Method = (typeof METHODS)[number]

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const SOLE_PLACEHOLDER = /^\{\{\s*([^\s{}|]+)\s*\}\}$/

const lookup = (context: Record<string, unknown>, path: string): unknown =>
  path.split(".").reduce<unknown>((at, key) => (isObject(at) && Object.hasOwn(at, key) ? at[key] : undefined), context)

/** A template value rendered: strings through `renderTemplate`, arrays and objects member by member. */
export const renderValue = (value: unknown, context: Record<string, unknown>): unknown => {
  if (typeof value === "string") {
    const sole = SOLE_PLACEHOLDER.exec(value)
    if (sole !== null) {
      const found = lookup(context, sole[1]!)
      return found === undefined ? null : found
    }
    return renderTemplate(value, context)
  }
  if (Array.isArray(value)) return value.map((v) => renderValue(v, context))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, context)]))
  return value
}

/** The requests of every enabled `webhook` node of `definition`, in the definition's order. */
export const webhookNodeRequests = (definition: unknown, context: Record<string, unknown>): ReadonlyArray<NodeRequest> => {
  const nodes = isObject(definition) && Array.isArray(definition.nodes) ? definition.nodes : []
  const out: Array<NodeRequest> = []
  for (const node of nodes) {
    if (!isObject(node) || node.type !== "webhook") continue
    const data = isObject(node.data) ? node.data : {}
    if (data.enabled === false) continue
    const nodeId = String(node.id ?? "")
    const nodeName = typeof data.name === "string" && data.name !== "" ? data.name : nodeId
    const skipped = (reason: string): NodeRequest => ({ _tag: "Skipped", nodeId, nodeName, reason })
    const rawUrl = typeof data.endpoint_url === "string" ? data.endpoint_url.trim() : ""
    if (rawUrl === "") {
      out.push(skipped("the node has no endpoint_url"))
      continue
    }
    const url = renderTemplate(rawUrl, context)
    try {
      const parsed = new URL(url)
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error()
    } catch {
      out.push(skipped(`endpoint_url is not an http(s) URL once rendered: ${url}`))
      continue
    }
    const method: Method = METHODS.find((m) => m === (typeof data.http_method === "string" ? data.http_method.toUpperCase() : "POST")) ?? "POST"
    const headers: Record<string, string> = {}
    for (const header of Array.isArray(data.custom_headers) ? data.custom_headers : []) {
      if (!isObject(header) || typeof header.key !== "string" || header.key.trim() === "") continue
      headers[header.key.trim()] = renderTemplate(typeof header.value === "string" ? header.value : String(header.value ?? ""), context)
    }
    const hasBody = method !== "GET" && method !== "DELETE"
    const template = isObject(data.payload_template) ? data.payload_template : undefined
    out.push({
      _tag: "Request",
      target: {
        method,
        url,
        headers,
        credential_uuid: typeof data.credential_uuid === "string" && data.credential_uuid.trim() !== "" ? data.credential_uuid.trim() : null,
        node_id: nodeId,
        node_name: nodeName
      },
      // Without a template, the reference's default body: the run's id and what it gathered.
      body: hasBody
        ? template !== undefined
          ? renderValue(template, context)
          : { workflow_run_id: context.workflow_run_id, initial_context: context.initial_context, gathered_context: context.gathered_context }
        : null
    })
  }
  return out
}
