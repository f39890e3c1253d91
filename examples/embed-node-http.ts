/**
 * Mounting Agentline inside an existing node:http server: requests under /api/v1 go to Agentline,
 * everything else stays with the host application.
 *
 *   node --import tsx examples/embed-node-http.ts      # then: curl localhost:3000/api/v1/health
 */
import { Embed } from "@agentline/http"
import { createServer } from "node:http"

export const startHost = async (port: number, dataDir = "./data-embedded") => {
  const agentline = await Embed.makeHandlers({ dataDir, publicUrl: `http://localhost:${port}` })
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/api/v1/")) return agentline.node(req, res)
    res.writeHead(200, { "content-type": "text/plain" })
    res.end("the host application\n")
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await agentline.dispose()
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const port = Number(process.env.PORT ?? 3000)
  await startHost(port)
  console.log(`host listening on http://localhost:${port} (Agentline under /api/v1)`)
}
