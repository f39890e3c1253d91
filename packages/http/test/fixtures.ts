/** A small valid agent definition: start → agent → end, with an API trigger. */
export const definition = (triggerPath?: string, greeting = "Hello {{first_name}}") => ({
  nodes: [
    {
      id: "start",
      type: "startCall",
      position: { x: 0, y: 0 },
      data: { name: "Start", prompt: `Greet the caller. ${greeting}`, greeting }
    },
    { id: "agent", type: "agentNode", position: { x: 0, y: 100 }, data: { name: "Qualify", prompt: "Ask about {{topic}}" } },
    { id: "end", type: "endCall", position: { x: 0, y: 200 }, data: { name: "End", prompt: "Say goodbye" } },
    {
      id: "trigger",
      type: "trigger",
      position: { x: 200, y: 0 },
      data: { name: "API trigger", ...(triggerPath === undefined ? {} : { trigger_path: triggerPath }) }
    }
  ],
  edges: [
    { id: "e1", source: "start", target: "agent", data: { label: "qualify", condition: "The caller answered" } },
    { id: "e2", source: "agent", target: "end", data: { label: "finish", condition: "Done" } }
  ],
  viewport: { x: 0, y: 0, zoom: 1 }
})
