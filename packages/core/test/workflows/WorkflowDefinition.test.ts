import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { type DefinitionIssue, MAX_EDGES, MAX_NODES, validateDefinition } from "../../src/workflows/DefinitionValidation.js"
import { mintTriggerPaths, transitionToolName, triggerPaths, WorkflowDefinition } from "../../src/workflows/WorkflowDefinition.js"

/** JSON fields as a client sends them, which the tests below break on purpose. */
type Fields = { [key: string]: unknown }
/** A node or an edge as a client sends it. */
interface Item extends Fields {
  data: Fields
}
/** A definition as a client sends it. */
interface Input extends Fields {
  nodes: Array<Item>
  edges: Array<Item>
}

/** Every node type with most documented fields, and unknown keys at every level. */
const full = (): Input => ({
  nodes: [
    {
      id: "start",
      type: "startCall",
      position: { x: 0, y: 0, zoom_hint: 2 },
      width: 320,
      selected: false,
      data: {
        name: "Greeting",
        prompt: "Greet {{first_name}} and ask why they called.",
        allow_interrupt: true,
        add_global_prompt: true,
        greeting: "Hi {{first_name}}!",
        greeting_type: "text",
        greeting_recording_id: null,
        delayed_start: true,
        delayed_start_duration: 2.5,
        pre_call_fetch_mode: "outbound",
        pre_call_fetch_enabled: false,
        pre_call_fetch_url: "https://crm.example/lookup",
        pre_call_fetch_credential_uuid: null,
        extraction_enabled: true,
        extraction_prompt: "Extract the reason",
        extraction_variables: [{ name: "reason", type: "string", prompt: "why", ui_color: "red" }],
        tool_uuids: ["t-1"],
        document_uuids: [],
        mcp_tool_filters: { server: ["tool_a"] },
        invalid: false,
        validationMessage: null
      }
    },
    {
      id: "qualify",
      type: "agentNode",
      position: { x: 0, y: 100 },
      data: { name: "Qualify", prompt: "Ask about budget", extraction_variables: null, tool_uuids: null, custom_ui: { a: 1 } }
    },
    { id: "end", type: "endCall", position: { x: 0, y: 200 }, data: { name: "Close", prompt: "Say goodbye", add_global_prompt: false } },
    { id: "global", type: "globalNode", position: { x: 300, y: 0 }, data: { name: "Persona", prompt: "You are Sarah." } },
    { id: "api", type: "trigger", position: { x: 300, y: 100 }, data: { name: "API", trigger_path: "my-agent_1", enabled: true } },
    {
      id: "hook",
      type: "webhook",
      position: { x: 300, y: 200 },
      data: {
        name: "CRM",
        enabled: true,
        http_method: "POST",
        endpoint_url: "https://crm.example/calls",
        credential_uuid: null,
        custom_headers: [{ key: "X-Source", value: "agentline" }],
        payload_template: { run: "{{workflow_run_id}}", city: "{{gathered_context.city}}" }
      }
    },
    {
      id: "review",
      type: "qa",
      position: { x: 300, y: 300 },
      data: { name: "QA", qa_enabled: true, qa_min_call_duration: 15, qa_sample_rate: 50, qa_provider: "openai", qa_model: "gpt" }
    }
  ],
  edges: [
    {
      id: "e1",
      source: "start",
      target: "qualify",
      animated: true,
      data: {
        label: "Qualify",
        condition: "The caller states a reason",
        transition_speech: "One moment {{first_name}}",
        transition_speech_type: "text",
        editor_note: "keep"
      }
    },
    { id: "e2", source: "qualify", target: "end", data: { label: "Finish", condition: "Budget known" } },
    { id: "e3", source: "qualify", target: "qualify", data: { label: "Ask again", condition: "No answer" } }
  ],
  viewport: { x: 10, y: 20, zoom: 1.5 },
  editor_version: 3
})

/** The smallest valid definition the rule tests start from. */
const minimal = (): Input => ({
  nodes: [
    { id: "start", type: "startCall", position: { x: 0, y: 0 }, data: { name: "Start", prompt: "Greet" } },
    { id: "agent", type: "agentNode", position: { x: 0, y: 1 }, data: { name: "Agent", prompt: "Help" } },
    { id: "end", type: "endCall", position: { x: 0, y: 2 }, data: { name: "End", prompt: "Bye" } }
  ],
  edges: [
    { id: "e1", source: "start", target: "agent", data: { label: "help", condition: "Caller speaks" } },
    { id: "e2", source: "agent", target: "end", data: { label: "finish", condition: "Done" } }
  ]
})

const node = (id: string, type: string, data: Fields = { name: id, prompt: "p" }): Item => ({ id, type, position: { x: 0, y: 0 }, data })
const edge = (id: string, source: string, target: string, label = id, condition = "when"): Item => ({
  id,
  source,
  target,
  data: { label, condition }
})

const where = (errors: ReadonlyArray<DefinitionIssue>) => errors.map(({ field, id, kind }) => ({ kind, id, field }))
const issuesOf = (input: unknown) => where(validateDefinition(input).errors)
const one = (kind: DefinitionIssue["kind"], id: string | null, field: string | null) => [{ kind, id, field }]

describe("WorkflowDefinition schema", () => {
  it("a full definition validates, decodes and keeps every unknown key through decode and encode", () => {
    const input = full()
    const { definition, errors } = validateDefinition(input)
    expect(errors).toEqual([])
    expect(definition).toEqual(input)
    expect(definition.viewport).toEqual({ x: 10, y: 20, zoom: 1.5 })
    expect(definition.nodes[0]!.width).toBe(320)
    expect(definition.nodes[0]!.data).toHaveProperty("validationMessage", null)
    expect(definition.edges[0]!.data).toHaveProperty("editor_note", "keep")
    expect(Schema.encodeSync(WorkflowDefinition)(definition)).toEqual(input)
    expect(Schema.encodeSync(WorkflowDefinition)(Schema.decodeUnknownSync(WorkflowDefinition)(input))).toEqual(input)
  })

  it("a decoded definition is typed by node type", () => {
    const { definition } = validateDefinition(full())
    const trigger = definition.nodes.find((n) => n.type === "trigger")
    expect(trigger?.type === "trigger" ? trigger.data.trigger_path : undefined).toBe("my-agent_1")
  })

  it("the schema refuses what the validator refuses", () => {
    const input = minimal()
    input.nodes[1].data.prompt = ""
    expect(issuesOf(input)).toEqual(one("node", "agent", "prompt"))
    expect(Schema.decodeUnknownEither(WorkflowDefinition)(input)._tag).toBe("Left")
  })

  it("position is optional; trigger and webhook nodes need no prompt; a definition without edges is fine", () => {
    expect(
      issuesOf({
        nodes: [
          { id: "s", type: "startCall", data: { name: "S", prompt: "p" } },
          node("t", "trigger", { name: "T" }),
          node("w", "webhook", { name: "W" }),
          node("q", "qa", { name: "Q" })
        ],
        edges: []
      })
    ).toEqual([])
  })

  it("the minimal definition is valid", () => {
    expect(validateDefinition(minimal()).errors).toEqual([])
  })
})

describe("validateDefinition: shape", () => {
  it("a definition that is not an object", () => {
    for (const input of [null, undefined, "x", 3, [], [minimal()]]) {
      expect(issuesOf(input)).toEqual(one("workflow", null, null))
    }
  })

  it("nodes that are not an array (so there is no startCall either)", () => {
    for (const input of [{ nodes: { a: 1 }, edges: [] }, { edges: [] }]) {
      const { errors } = validateDefinition(input)
      expect(where(errors)).toEqual([{ kind: "workflow", id: null, field: "nodes" }, { kind: "workflow", id: null, field: "nodes" }])
      expect(errors[0]!.message).toContain("array")
      expect(errors[1]!.message).toContain("startCall")
    }
  })

  it("edges that are not an array", () => {
    const { edges: _edges, ...input } = minimal()
    expect(issuesOf({ ...input, edges: "e1" })).toEqual(one("workflow", null, "edges"))
    expect(issuesOf(input)).toEqual(one("workflow", null, "edges"))
  })

  it("a node that is not an object", () => {
    const input = { ...minimal(), nodes: [...minimal().nodes, "agent2"] }
    expect(issuesOf(input)).toEqual(one("node", null, null))
    expect(validateDefinition(input).errors[0]!.message).toContain("nodes[3]")
  })

  it("a node without an id", () => {
    for (const id of [undefined, "", "  ", 7]) {
      const input = minimal()
      input.nodes.push({ ...node("x", "agentNode"), id })
      expect(issuesOf(input)).toEqual(one("node", null, "id"))
    }
  })

  it("a node without a type", () => {
    const input = minimal()
    delete input.nodes[1].type
    // The edge into it still counts: the node exists, its type is what is wrong.
    expect(issuesOf(input)).toEqual(one("node", "agent", "type"))
  })

  it("a node of an unknown type", () => {
    const input = minimal()
    input.nodes[1].type = "noveum"
    expect(issuesOf(input)).toEqual(one("node", "agent", "type"))
    expect(validateDefinition(input).errors[0]!.message).toContain("noveum")
  })

  it("a node without data, or with data that is not an object", () => {
    for (const data of [undefined, null, "x", [1]]) {
      const input = minimal()
      expect(issuesOf({ ...input, nodes: input.nodes.map((n) => (n.id === "agent" ? { ...n, data } : n)) })).toEqual(one("node", "agent", "data"))
    }
  })

  it("a missing or empty name", () => {
    for (const name of [undefined, "", "   ", 5]) {
      const input = minimal()
      input.nodes[2].data.name = name
      if (name === undefined) delete input.nodes[2].data.name
      expect(issuesOf(input)).toEqual(one("node", "end", "name"))
    }
  })

  it("a missing or empty prompt on every prompted node type", () => {
    for (const [type, id] of [["startCall", "start"], ["agentNode", "agent"], ["endCall", "end"], ["globalNode", "g"]] as const) {
      for (const prompt of [undefined, "", " \n "]) {
        const input = minimal()
        const target = input.nodes.find((n) => n.id === id) ?? node(id, type)
        if (type === "globalNode") input.nodes.push(target)
        target.data.prompt = prompt
        if (prompt === undefined) delete target.data.prompt
        expect(issuesOf(input)).toEqual(one("node", id, "prompt"))
      }
    }
  })

  it("a malformed position", () => {
    const input = minimal()
    input.nodes[0].position = { x: "0", y: 0 }
    expect(issuesOf(input)).toEqual(one("node", "start", "position.x"))
    input.nodes[0].position = 5
    expect(issuesOf(input)).toEqual(one("node", "start", "position"))
  })

  it("malformed extraction variables, with the path to the one at fault", () => {
    const input = minimal()
    input.nodes[1].data.extraction_variables = [{ name: "ok", type: "string" }, { name: "when", type: "date" }, { type: "number" }]
    expect(issuesOf(input)).toEqual([
      { kind: "node", id: "agent", field: "extraction_variables.1.type" },
      { kind: "node", id: "agent", field: "extraction_variables.2.name" }
    ])
  })

  it("typed optional fields: wrong types and values outside the documented choices", () => {
    const input = minimal()
    Object.assign(input.nodes[0].data, { allow_interrupt: "yes", greeting_type: "video", delayed_start_duration: 11, tool_uuids: "t-1" })
    input.nodes.push(node("hook", "webhook", { name: "W", http_method: "FETCH", custom_headers: [{ key: "X" }], payload_template: [] }))
    input.nodes.push(node("qa", "qa", { name: "Q", qa_sample_rate: 0, qa_provider: "mistral" }))
    input.edges[0].data.transition_speech_type = "video"
    // In the order the node-type catalog lists the fields.
    expect(issuesOf(input)).toEqual([
      { kind: "node", id: "start", field: "greeting_type" },
      { kind: "node", id: "start", field: "allow_interrupt" },
      { kind: "node", id: "start", field: "delayed_start_duration" },
      { kind: "node", id: "start", field: "tool_uuids" },
      { kind: "node", id: "hook", field: "http_method" },
      { kind: "node", id: "hook", field: "custom_headers.0.value" },
      { kind: "node", id: "hook", field: "payload_template" },
      { kind: "node", id: "qa", field: "qa_sample_rate" },
      { kind: "node", id: "qa", field: "qa_provider" },
      { kind: "edge", id: "e1", field: "transition_speech_type" }
    ])
    const messages = validateDefinition(input).errors.map((e) => e.message)
    expect(messages).toContain(`greeting_type must be one of "text", "audio"`)
    expect(messages).toContain("delayed_start_duration must be a number from 0.1 to 10")
    expect(messages).toContain("custom_headers.0.value is required")
  })

  it("null means not set for optional fields", () => {
    const input = minimal()
    Object.assign(input.nodes[0].data, { greeting: null, greeting_type: null, tool_uuids: null, extraction_variables: null })
    input.edges[0].data.transition_speech = null
    expect(issuesOf(input)).toEqual([])
  })
})

describe("validateDefinition: ids and references", () => {
  it("duplicate node ids", () => {
    const input = minimal()
    input.nodes.push(node("agent", "agentNode"))
    expect(issuesOf(input)).toEqual(one("node", "agent", "id"))
  })

  it("duplicate edge ids", () => {
    const input = minimal()
    input.edges.push(edge("e1", "agent", "agent", "retry"))
    expect(issuesOf(input)).toEqual(one("edge", "e1", "id"))
  })

  it("an edge without an id", () => {
    const input = minimal()
    input.edges.push({ ...edge("x", "agent", "agent"), id: "" })
    expect(issuesOf(input)).toEqual(one("edge", null, "id"))
  })

  it("an edge that is not an object", () => {
    const input = minimal()
    expect(issuesOf({ ...input, edges: [...input.edges, null] })).toEqual(one("edge", null, null))
  })

  it("an edge whose source does not exist", () => {
    const input = minimal()
    input.edges.push(edge("e3", "ghost", "end"))
    expect(issuesOf(input)).toEqual(one("edge", "e3", "source"))
  })

  it("an edge whose target does not exist", () => {
    const input = minimal()
    input.edges.push(edge("e3", "agent", "ghost"))
    expect(issuesOf(input)).toEqual(one("edge", "e3", "target"))
  })

  it("an edge without a source or target", () => {
    const input = minimal()
    const broken = edge("e3", "agent", "end", "other")
    delete broken.source
    broken.target = 4
    input.edges.push(broken)
    expect(issuesOf(input)).toEqual([
      { kind: "edge", id: "e3", field: "source" },
      { kind: "edge", id: "e3", field: "target" }
    ])
  })

  it("an edge without data", () => {
    const input = minimal()
    const { data: _data, ...withoutData } = input.edges[1]
    expect(issuesOf({ ...input, edges: [input.edges[0], withoutData] })).toEqual(one("edge", "e2", "data"))
  })

  it("an edge without a label, or with an empty one", () => {
    for (const label of [undefined, "", "  "]) {
      const input = minimal()
      input.edges[1].data.label = label
      if (label === undefined) delete input.edges[1].data.label
      expect(issuesOf(input)).toEqual(one("edge", "e2", "label"))
    }
  })

  it("an edge without a condition, or with an empty one", () => {
    for (const condition of [undefined, ""]) {
      const input = minimal()
      input.edges[1].data.condition = condition
      if (condition === undefined) delete input.edges[1].data.condition
      expect(issuesOf(input)).toEqual(one("edge", "e2", "condition"))
    }
  })

  it("two edges from one node whose labels make the same transition tool", () => {
    const input = minimal()
    input.edges.push(edge("e3", "agent", "agent", "Finish!"))
    input.edges.push(edge("e4", "agent", "end", "FINISH"))
    // "Finish!" → "finish_" differs from "finish"; "FINISH" → "finish" collides with e2.
    expect(issuesOf(input)).toEqual(one("edge", "e4", "label"))
    expect(validateDefinition(input).errors[0]!.message).toContain("e2")
  })

  it("the same label from different nodes is fine", () => {
    const input = minimal()
    input.edges[0].data.label = "finish"
    expect(issuesOf(input)).toEqual([])
  })

  it("transition tool names follow the reference's normalisation", () => {
    expect(transitionToolName("Book It-Now!")).toBe("book_it_now_")
    expect(transitionToolName("go next")).toBe(transitionToolName("Go-Next"))
  })
})

describe("validateDefinition: graph rules", () => {
  it("no startCall node", () => {
    const input = { nodes: [node("agent", "agentNode"), node("end", "endCall")], edges: [edge("done", "agent", "end")] }
    expect(issuesOf(input)).toEqual(one("workflow", null, "nodes"))
  })

  it("two startCall nodes", () => {
    const input = minimal()
    input.nodes.push(node("start2", "startCall"))
    const { errors } = validateDefinition(input)
    expect(where(errors)).toEqual(one("workflow", null, "nodes"))
    expect(errors[0]!.message).toContain("start, start2")
  })

  it("an edge into the startCall node", () => {
    const input = minimal()
    input.edges.push(edge("back", "agent", "start"))
    expect(issuesOf(input)).toEqual(one("edge", "back", "target"))
  })

  it("an edge out of an endCall node", () => {
    const input = minimal()
    input.edges.push(edge("after", "end", "agent"))
    expect(issuesOf(input)).toEqual(one("edge", "after", "source"))
  })

  it("two globalNodes", () => {
    const input = minimal()
    input.nodes.push(node("g1", "globalNode"), node("g2", "globalNode"))
    const { errors } = validateDefinition(input)
    expect(where(errors)).toEqual(one("workflow", null, "nodes"))
    expect(errors[0]!.message).toContain("globalNode")
  })

  it("an edge into or out of a globalNode", () => {
    const input = minimal()
    input.nodes.push(node("g", "globalNode"))
    input.edges.push(edge("to-g", "agent", "g"))
    expect(issuesOf(input)).toEqual(one("edge", "to-g", "target"))
    input.edges.pop()
    input.edges.push(edge("from-g", "g", "agent"))
    expect(issuesOf(input)).toEqual(one("edge", "from-g", "source"))
  })

  it("two trigger nodes", () => {
    const input = minimal()
    input.nodes.push(node("t1", "trigger", { name: "A" }), node("t2", "trigger", { name: "B" }))
    const { errors } = validateDefinition(input)
    expect(where(errors)).toEqual(one("workflow", null, "nodes"))
    expect(errors[0]!.message).toContain("t1, t2")
  })

  it("an edge into a trigger node", () => {
    const input = minimal()
    input.nodes.push(node("t", "trigger", { name: "T" }))
    input.edges.push(edge("to-t", "agent", "t"))
    expect(issuesOf(input)).toEqual(one("edge", "to-t", "target"))
  })

  it("an edge at a webhook or qa node", () => {
    for (const type of ["webhook", "qa"]) {
      const input = minimal()
      input.nodes.push(node("post", type, { name: "P" }))
      input.edges.push(edge("to-post", "agent", "post"))
      expect(issuesOf(input)).toEqual(one("edge", "to-post", "target"))
      input.edges.pop()
      input.edges.push(edge("from-post", "post", "agent"))
      expect(issuesOf(input)).toEqual(one("edge", "from-post", "source"))
    }
  })

  it("an agentNode or endCall node no edge leads to is allowed (agents are built one save at a time)", () => {
    for (const type of ["agentNode", "endCall"]) {
      const input = minimal()
      input.nodes.push(node("orphan", type))
      expect(issuesOf(input)).toEqual([])
    }
  })

  it("cycles are allowed", () => {
    const input = minimal()
    input.nodes.push(node("a2", "agentNode"))
    input.edges.push(edge("e3", "agent", "a2"), edge("e4", "a2", "agent"))
    expect(issuesOf(input)).toEqual([])
  })
})

describe("validateDefinition: trigger paths", () => {
  const withPath = (trigger_path: unknown) => {
    const input = minimal()
    input.nodes.push(node("api", "trigger", { name: "API", trigger_path }))
    return input
  }

  it("a trigger path outside [A-Za-z0-9_-]{1,36}", () => {
    for (const path of ["has space", "a/b", "é", "x".repeat(37), 12]) {
      expect(issuesOf(withPath(path))).toEqual(one("node", "api", "trigger_path"))
    }
  })

  it("valid, empty and null trigger paths pass (empty ones are minted on save)", () => {
    for (const path of ["a", "A-z_09", "x".repeat(36), "", null]) {
      expect(issuesOf(withPath(path))).toEqual([])
    }
  })
})

describe("validateDefinition: many problems at once", () => {
  it("reports every problem, not the first only, with a readable message for each", () => {
    const input = minimal()
    input.nodes[0].data.name = ""
    input.nodes[1].data.prompt = ""
    input.nodes.push(node("agent", "agentNode"), node("weird", "bogus"), node("api", "trigger", { name: "T", trigger_path: "no way" }))
    input.edges.push(edge("e2", "end", "ghost"), edge("e5", "agent", "end", "Finish", ""))
    const { errors } = validateDefinition(input)
    expect(where(errors)).toEqual([
      { kind: "node", id: "start", field: "name" },
      { kind: "node", id: "agent", field: "prompt" },
      { kind: "node", id: "agent", field: "id" },
      { kind: "node", id: "weird", field: "type" },
      { kind: "node", id: "api", field: "trigger_path" },
      { kind: "edge", id: "e2", field: "id" },
      { kind: "edge", id: "e2", field: "target" },
      { kind: "edge", id: "e2", field: "source" },
      { kind: "edge", id: "e5", field: "condition" },
      { kind: "edge", id: "e5", field: "label" }
    ])
    for (const error of errors) expect(error.message.length).toBeGreaterThan(10)
    expect(errors[0]!.message).toBe("name must be a non-empty string")
  })
})

describe("trigger paths", () => {
  const withTriggers = (...paths: ReadonlyArray<unknown>): Input => ({
    ...minimal(),
    nodes: [
      ...minimal().nodes,
      ...paths.map((trigger_path, i) =>
        node(`t${i}`, "trigger", trigger_path === undefined ? { name: "T" } : { name: "T", trigger_path, enabled: false })
      )
    ]
  })
  const counter = () => {
    let n = 0
    return () => `minted-${++n}`
  }

  it("mints a path for a trigger without one, keeps the other fields, and leaves the input alone", () => {
    for (const missing of [undefined, "", null]) {
      const { definition, errors } = validateDefinition(withTriggers(missing))
      expect(errors).toEqual([])
      const minted = mintTriggerPaths(definition, counter())
      expect(triggerPaths(minted)).toEqual(["minted-1"])
      expect(minted.nodes[3]!.data).toEqual(missing === undefined ? { name: "T", trigger_path: "minted-1" } : { name: "T", trigger_path: "minted-1", enabled: false })
      expect(triggerPaths(definition)).toEqual([])
      expect(minted.nodes.slice(0, 3)).toEqual(definition.nodes.slice(0, 3))
      expect(minted.edges).toBe(definition.edges)
    }
  })

  it("keeps a path that is set, so a trigger URL survives edits", () => {
    const { definition } = validateDefinition(withTriggers("keep-me"))
    const next = counter()
    expect(triggerPaths(mintTriggerPaths(definition, next))).toEqual(["keep-me"])
    expect(next()).toBe("minted-1")
  })

  it("keeps unknown keys while minting", () => {
    const input = withTriggers(undefined)
    input.viewport = { zoom: 2 }
    input.nodes[3].data.ui = "x"
    const minted = mintTriggerPaths(validateDefinition(input).definition, counter())
    expect(minted.viewport).toEqual({ zoom: 2 })
    expect(minted.nodes[3]!.data).toEqual({ name: "T", ui: "x", trigger_path: "minted-1" })
  })

  it("a minted UUID is a valid trigger path", () => {
    const { definition } = validateDefinition(withTriggers(undefined))
    const minted = mintTriggerPaths(definition, () => crypto.randomUUID())
    expect(validateDefinition(minted).errors).toEqual([])
    expect(triggerPaths(minted)[0]).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("a definition without triggers has no paths", () => {
    const { definition } = validateDefinition(minimal())
    expect(triggerPaths(definition)).toEqual([])
    expect(mintTriggerPaths(definition, () => { throw new Error("no trigger to mint for") })).toEqual(definition)
  })
})

describe("validateDefinition: size limits (issue 16, defect 6)", () => {
  /** A start node and a chain of agent nodes, `count` nodes in all, with `edgeCount` edges along and back. */
  const chain = (count: number, edgeCount = count - 1): Input => {
    const nodes = [node("n0", "startCall"), ...Array.from({ length: count - 1 }, (_, i) => node(`n${i + 1}`, "agentNode"))]
    const edges = Array.from({ length: edgeCount }, (_, i) => {
      const from = i % (count - 1)
      return edge(`e${i}`, `n${from}`, `n${from + 1}`, `go ${i}`)
    })
    return { nodes, edges }
  }

  it(`${MAX_NODES} nodes and ${MAX_EDGES} edges are allowed`, () => {
    expect(validateDefinition(chain(MAX_NODES)).errors).toEqual([])
    expect(validateDefinition(chain(MAX_NODES, MAX_EDGES)).errors).toEqual([])
  })

  it("one node more is refused as a whole, without a problem listed per node", () => {
    const { errors } = validateDefinition(chain(MAX_NODES + 1))
    expect(where(errors)).toEqual(one("workflow", null, "nodes"))
    expect(errors[0]!.message).toBe(`nodes has ${MAX_NODES + 1} nodes; at most ${MAX_NODES} are allowed`)
  })

  it("one edge more is refused, and both limits are reported together", () => {
    expect(issuesOf(chain(10, MAX_EDGES + 1))).toEqual(one("workflow", null, "edges"))
    const tooBig = chain(MAX_NODES + 1, MAX_EDGES + 1)
    expect(issuesOf(tooBig)).toEqual([...one("workflow", null, "nodes"), ...one("workflow", null, "edges")])
  })

  it("items over the limit are not looked at: invalid ones add no problems", () => {
    const input = { nodes: Array.from({ length: MAX_NODES + 1 }, () => "not a node"), edges: [] }
    expect(issuesOf(input)).toEqual(one("workflow", null, "nodes"))
  })
})
