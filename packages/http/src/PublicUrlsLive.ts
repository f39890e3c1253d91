/**
 * The `PublicUrls` port over this server's routes: every URL the domain hands out, built from
 * `AGENTLINE_PUBLIC_URL` and the paths of the endpoints that answer them (`calls/Api.ts`, `telephony-webhooks/Routes.ts`,
 * `uploads/Api.ts`, `runs/Api.ts`, `campaigns/Api.ts`, `embed/WidgetScript.ts`). The API is served under `/api/v1`.
 */
import { PublicUrls } from "@agentline/core/PublicUrls"
import type { Layer } from "effect"
import { WIDGET_PATH } from "./embed/WidgetScript.js"

/** `publicUrl`: the address clients and providers reach this server at, e.g. `https://calls.example.com`. */
export const layer = (publicUrl: string): Layer.Layer<PublicUrls> => {
  const base = publicUrl.replace(/\/+$/, "")
  const api = `${base}/api/v1`
  const segment = encodeURIComponent
  return PublicUrls.layer({
    telephonyCallback: ({ attemptId, provider }) => `${api}/telephony/callbacks/${segment(provider)}/${attemptId}`,
    telephonyInbound: ({ provider }) => `${api}/telephony/inbound/${segment(provider)}`,
    telephonyAnswer: ({ attemptId, provider }) => `${api}/telephony/answer/${segment(provider)}/${attemptId}`,
    telephonyTransferResult: ({ transferId }) => `${api}/telephony/transfer-result/${segment(transferId)}`,
    // Media streams are WebSockets: ws:// beside http://, wss:// beside https://.
    mediaStream: ({ provider, token }) => `${api.replace(/^http/, "ws")}/telephony/media/${segment(provider)}/${token}`,
    // Upload keys are `<organization>/contacts/<file>`: their slashes are the route's own.
    contactsUpload: ({ key, query }) => `${api}/storage/upload/${key}?${query}`,
    // Recording keys are `<organization>/recordings/<file>`, the same route's other folder.
    recordingUpload: ({ key, query }) => `${api}/storage/upload/${key}?${query}`,
    run: ({ runId, workflowId }) => `${api}/workflow/${workflowId}/runs/${runId}`,
    embedWidgetScript: () => `${base}${WIDGET_PATH}`,
    runArtifact: ({ artifact, token }) => `${api}/public/download/workflow/${segment(token)}/${artifact}`,
    campaignSource: ({ token }) => `${api}/public/download/campaign-source/${segment(token)}`
  })
}
