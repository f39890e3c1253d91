/**
 * Telnyx's `client_state`: a base64 string set on a command (dial, answer) and echoed in every later
 * webhook of the call and in its media stream's `start` frame. Agentline keeps the stream parameters
 * of a `ConnectMediaStream` instruction there (a dial cannot set the stream's `custom_parameters`),
 * as base64 JSON of string values.
 */
export const encode = (parameters: Readonly<Record<string, string>>): string =>
  Buffer.from(JSON.stringify(parameters), "utf8").toString("base64")

/** The parameters in a `client_state`; anything else (another application's state, garbage): none. */
export const decode = (clientState: string | null | undefined): Record<string, string> => {
  if (clientState == null || clientState === "") return {}
  try {
    const value: unknown = JSON.parse(Buffer.from(clientState, "base64").toString("utf8"))
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {}
    return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
  } catch {
    return {}
  }
}
