/**
 * One node on the editor's canvas: its type, name and problem count, with the handles its type allows
 * (the graph rules of `definitionGraph.ts`). The editor provides the definition's problems by context.
 */
import { Handle, type Node, type NodeProps, Position } from "@xyflow/react"
import { createContext, useContext } from "react"
import { type JsonObject, NODE_TYPE_LABELS, NODE_TYPES, type NodeType } from "./definitionGraph.js"
import { allMessages, noIssues, type SortedIssues } from "./definitionIssues.js"

export const IssuesContext = createContext<SortedIssues>(noIssues)

export type FlowNode = Node<JsonObject, NodeType>

/** Which handles a type has: none for nodes that take no edges, no way in for start and trigger, no way out of an end. */
export const handles = (type: NodeType): { readonly target: boolean; readonly source: boolean } => ({
  target: type === "agentNode" || type === "endCall" || type === "transfer",
  source: type === "startCall" || type === "agentNode" || type === "trigger"
})

const AgentFlowNode = ({ data, id, selected, type }: NodeProps<FlowNode>) => {
  const issues = allMessages(useContext(IssuesContext).nodes.get(id))
  const has = handles(type)
  const name = typeof data.name === "string" && data.name.trim() !== "" ? data.name : "(unnamed)"
  return (
    <div className={`flow-node flow-node-${type}${selected ? " is-selected" : ""}${issues.length > 0 ? " has-issues" : ""}`}>
      {has.target && <Handle type="target" position={Position.Top} />}
      <div className="flow-node-type">{NODE_TYPE_LABELS[type]}</div>
      <div className="flow-node-name">{name}</div>
      {issues.length > 0 && (
        <div className="flow-node-issues">
          {issues.length} problem{issues.length === 1 ? "" : "s"}
        </div>
      )}
      {has.source && <Handle type="source" position={Position.Bottom} />}
    </div>
  )
}

export const nodeTypes = Object.fromEntries(NODE_TYPES.map((t) => [t, AgentFlowNode]))
