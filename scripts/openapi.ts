// `npm run lint:openapi`: writes the OpenAPI document the server serves at /api/v1/openapi.json (built
// from its HttpApi and its telephony registry, as `Server.ApiLive` builds it) to the path given, for
// `redocly lint`.
import { openApiDocument } from "@agentline/http/OpenApiSpec"
import { registryLayer } from "@agentline/http/telephony/Providers"
import { Effect } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"

const target = process.argv[2] ?? "build/openapi.json"
const document = await Effect.runPromise(Effect.scoped(openApiDocument.pipe(Effect.provide(registryLayer()))))
mkdirSync(dirname(target), { recursive: true })
writeFileSync(target, JSON.stringify(document, null, 2) + "\n")
console.log(`OpenAPI document written to ${target} (${Object.keys(document.paths).length} paths)`)
