/**
 * The Tools section: the organization's tools with the form that creates one, and each tool's page
 * (its test, an MCP server's tools, archive and unarchive). Agents choose their tools in the agent
 * editor's step forms.
 */
import { Route, Routes } from "react-router"
import { ToolList } from "./ToolList.js"
import { ToolPage } from "./ToolPage.js"

export default function ToolsRoutes() {
  return (
    <Routes>
      <Route index element={<ToolList />} />
      <Route path=":toolUuid" element={<ToolPage />} />
    </Routes>
  )
}
