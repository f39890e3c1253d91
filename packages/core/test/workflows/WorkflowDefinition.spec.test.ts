import { describe, expect, it } from "@effect/vitest"
import { validateDefinition } from "../../src/workflows/DefinitionValidation.js"
import { mintTriggerPaths, triggerPaths } from "../../src/workflows/WorkflowDefinition.js"

const valid = () => ({
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Hi", custom: 1 }, selected: true },
    { id: "agent", type: "agentNode", data: { name: "Agent", prompt: "Talk" } },
    { id: "end", type: "endCall", data: { name: "End", prompt: "Bye" } },
    { id: "global", type: "globalNode", data: { name: "Global", prompt: "Be kind" } },
    { id: "trigger", type: "trigger", data: { name: "API", trigger_path: "my-path_1" } },
    { id: "hook", type: "webhook", data: { name: "Hook", endpoint_url: "https://example.com" } }
  ],
  edges: [
    { id: "e1", source: "start", target: "agent", data: { label: "go", condition: "ready" } },
    { id: "e2", source: "agent", target: "end", data: { label: "done", condition: "finished" } }
  ],
  viewport: { zoom: 2 }
})

const issues = (mutate: (d: any) => void) => {
  const d: any = valid()
  mutate(d)
  return validateDefinition(d).errors.map((e) => [e.kind, e.id, e.field])
}

describe("validateDefinition", () => {
  it("accepts a valid definition and keeps every unknown key", () => {
    const { definition, errors } = validateDefinition(valid())
    expect(errors).toEqual([])
    expect(JSON.parse(JSON.stringify(definition))).toEqual(valid())
  })

  it.each([
    ["not an object", () => validateDefinition("x").errors.map((e) => [e.kind, e.id, e.field]), [["workflow", null, null]]],
    ["nodes not an array", () => issues((d) => (d.nodes = {})), [["workflow", null, "nodes"], ["workflow", null, "nodes"], ["edge", "e1", "source"], ["edge", "e1", "target"], ["edge", "e2", "source"], ["edge", "e2", "target"]]],
    ["unknown node type", () => issues((d) => (d.nodes[5].type = "robot")), [["node", "hook", "type"]]],
    ["empty name", () => issues((d) => (d.nodes[1].data.name = " ")), [["node", "agent", "name"]]],
    ["missing prompt", () => issues((d) => delete d.nodes[2].data.prompt), [["node", "end", "prompt"]]],
    ["duplicate node id", () => issues((d) => (d.nodes[3].id = "agent")), [["node", "agent", "id"]]],
    ["two start nodes", () => issues((d) => d.nodes.push({ id: "s2", type: "startCall", data: { name: "x", prompt: "y" } })), [["workflow", null, "nodes"]]],
    ["two global nodes", () => issues((d) => d.nodes.push({ id: "g2", type: "globalNode", data: { name: "x", prompt: "y" } })), [["workflow", null, "nodes"]]],
    ["two triggers", () => issues((d) => d.nodes.push({ id: "t2", type: "trigger", data: { name: "x" } })), [["workflow", null, "nodes"]]],
    ["bad trigger path", () => issues((d) => (d.nodes[4].data.trigger_path = "has space")), [["node", "trigger", "trigger_path"]]],
    ["dangling edge", () => issues((d) => (d.edges[1].target = "nowhere")), [["edge", "e2", "target"]]],
    ["edge into start", () => issues((d) => d.edges.push({ id: "e3", source: "agent", target: "start", data: { label: "back", condition: "c" } })), [["edge", "e3", "target"]]],
    ["edge out of end", () => issues((d) => d.edges.push({ id: "e3", source: "end", target: "agent", data: { label: "again", condition: "c" } })), [["edge", "e3", "source"]]],
    ["edge to a trigger", () => issues((d) => d.edges.push({ id: "e3", source: "agent", target: "trigger", data: { label: "t", condition: "c" } })), [["edge", "e3", "target"]]],
    ["edge on the global node", () => issues((d) => d.edges.push({ id: "e3", source: "global", target: "agent", data: { label: "g", condition: "c" } })), [["edge", "e3", "source"]]],
    ["missing label and condition", () => issues((d) => (d.edges[0].data = {})), [["edge", "e1", "label"], ["edge", "e1", "condition"]]],
    ["duplicate label from a source", () => issues((d) => d.edges.push({ id: "e3", source: "start", target: "end", data: { label: "go", condition: "c" } })), [["edge", "e3", "label"]]],
    ["duplicate edge id", () => issues((d) => (d.edges[1].id = "e1")), [["edge", "e1", "id"]]]
  ] as const)("%s", (_, run, expected) => {
    expect(run()).toEqual(expected)
  })

  it("reports several problems at once", () => {
    expect(issues((d) => {
      d.nodes[1].data.name = ""
      d.edges[1].target = "x"
      delete d.nodes[2].data.prompt
    })).toHaveLength(3)
  })
})

describe("trigger paths", () => {
  it("mints paths for empty triggers only and lists them", () => {
    const d: any = valid()
    d.nodes[4].data.trigger_path = ""
    const minted = mintTriggerPaths(validateDefinition(d).definition, () => "minted-1")
    expect(triggerPaths(minted)).toEqual(["minted-1"])
    expect(triggerPaths(mintTriggerPaths(validateDefinition(valid()).definition, () => "unused"))).toEqual(["my-path_1"])
  })
})
