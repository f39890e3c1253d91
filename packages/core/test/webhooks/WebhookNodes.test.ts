import { describe, expect, it } from "@effect/vitest"
import { renderValue, webhookNodeRequests } from "../../src/webhooks/WebhookNodes.js"

const context = {
  workflow_run_id: 12,
  initial_context: { first_name: "Ada" },
  gathered_context: { city: "Paris", score: 7 },
  cost_info: { call_duration_seconds: 42 },
  recording_url: "https://x/r",
  transcript_url: ""
}

const node = (id: string, data: Record<string, unknown>) => ({ id, type: "webhook", position: { x: 0, y: 0 }, data: { name: id, ...data } })

describe("webhook node requests", () => {
  it("renders the URL, headers and payload template; a sole placeholder keeps its value's type", () => {
    const [request] = webhookNodeRequests({
      nodes: [
        { id: "start", type: "startCall", data: {} },
        node("crm", {
          http_method: "patch",
          endpoint_url: "https://crm.example.com/runs/{{workflow_run_id}}",
          custom_headers: [{ key: "X-Run", value: "{{workflow_run_id}}" }, { key: " ", value: "dropped" }],
          payload_template: {
            id: "{{workflow_run_id}}",
            seconds: "{{cost_info.call_duration_seconds}}",
            all: "{{gathered_context}}",
            text: "{{initial_context.first_name}} in {{gathered_context.city}}",
            missing: "{{gathered_context.email}}",
            nested: [{ score: "{{ gathered_context.score }}" }],
            fixed: true
          }
        })
      ]
    }, context)
    expect(request).toEqual({
      _tag: "Request",
      target: {
        method: "PATCH",
        url: "https://crm.example.com/runs/12",
        headers: { "X-Run": "12" },
        credential_uuid: null,
        node_id: "crm",
        node_name: "crm"
      },
      body: {
        id: 12,
        seconds: 42,
        all: { city: "Paris", score: 7 },
        text: "Ada in Paris",
        missing: null,
        nested: [{ score: 7 }],
        fixed: true
      }
    })
  })

  it("GET and DELETE send no body; no template sends the run's id and contexts; disabled nodes are left out", () => {
    const requests = webhookNodeRequests({
      nodes: [
        node("get", { http_method: "GET", endpoint_url: "https://a.example/x", payload_template: { a: 1 } }),
        node("plain", { endpoint_url: "https://a.example/y" }),
        node("off", { enabled: false, endpoint_url: "https://a.example/z" })
      ]
    }, context)
    expect(requests.map((r) => r._tag === "Request" ? [r.target.method, r.body] : r._tag)).toEqual([
      ["GET", null],
      ["POST", { workflow_run_id: 12, initial_context: { first_name: "Ada" }, gathered_context: { city: "Paris", score: 7 } }]
    ])
  })

  it("a node that cannot be sent is skipped with the reason: no URL, not http(s); a credential is named, not resolved", () => {
    const requests = webhookNodeRequests({
      nodes: [
        node("none", { endpoint_url: null }),
        node("ftp", { endpoint_url: "ftp://a.example/x" }),
        node("cred", { endpoint_url: "https://a.example/x", credential_uuid: " c-1 " })
      ]
    }, context)
    expect(requests.map((r) => r._tag === "Skipped" ? r.reason : r.target.credential_uuid)).toEqual([
      "the node has no endpoint_url",
      "endpoint_url is not an http(s) URL once rendered: ftp://a.example/x",
      "c-1"
    ])
  })

  it("contact data is not expanded again (one pass)", () => {
    expect(renderValue("Hi {{initial_context.first_name}}", { initial_context: { first_name: "{{workflow_run_id}}" }, workflow_run_id: 1 }))
      .toBe("Hi {{workflow_run_id}}")
    expect(webhookNodeRequests(undefined, context)).toEqual([])
    expect(webhookNodeRequests({ nodes: "nope" }, context)).toEqual([])
  })
})
