// A plain Node backend (JavaScript, Express) with Agentline inside it. Outside the workspace: it uses
// the packages as a project that installed them does (their compiled `dist/`):
//
//   npm install express <the @agentline tarballs from `npm pack --workspaces`>
//   PORT=3000 node app.js
//
// - `@agentline/sql` gives the database (a SQLite file here; `Database.layerPg` for PostgreSQL);
// - `@agentline/http` mounts the /api/v1 API in the Express app (`Embed.makeHandlers`);
// - `@agentline/core` is used directly for a route of the host's own (phone-number normalization).
import { normalizeForCampaign } from "@agentline/core/phone-numbers/PhoneAddress"
import { Embed } from "@agentline/http"
import { Database } from "@agentline/sql"
import { Either } from "effect"
import express from "express"

const port = Number(process.env.PORT ?? 3000)
const dataDir = process.env.DATA_DIR ?? "./data"

const agentline = await Embed.makeHandlers({
  dataDir,
  database: Database.layerSqlite({ filename: `${dataDir}/host.db` }),
  publicUrl: `http://localhost:${port}`
})

const app = express()
// Before any body parser: Agentline reads its own request bodies. Express strips the mount path.
app.use("/api/v1", (req, res) => {
  req.url = req.originalUrl
  agentline.node(req, res)
})
app.get("/normalize", (req, res) => {
  const result = normalizeForCampaign(String(req.query.number ?? ""), String(req.query.country ?? "US"))
  Either.isRight(result) ? res.json({ number: result.right }) : res.status(422).json({ error: result.left })
})

const server = app.listen(port, "127.0.0.1", () => console.log(`host listening on http://127.0.0.1:${port}`))
const stop = async () => {
  server.close()
  await agentline.dispose()
  process.exit(0)
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
