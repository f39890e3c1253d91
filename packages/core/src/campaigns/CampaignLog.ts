/**
 * A campaign's append-only `logs` (stored oldest first): what happened to it and why, for the person
 * reading the campaign. The one definition of an entry, used by the API's schema, the campaign
 * service, the dispatcher and storage.
 */
import type { LogEntry, LogLevel } from "@agentline/api/campaigns/CampaignLog"
import { iso } from "../Time.js"


/** `ts` as epoch millis (from `Clock`) or an ISO string; stored as ISO UTC either way. */
export const logEntry = (
  ts: number | string,
  level: LogLevel,
  event: string,
  message: string,
  details: Record<string, unknown> = {}
): LogEntry => ({
  ts: typeof ts === "number" ? iso(ts) : ts,
  level,
  event,
  message,
  details
})
