/**
 * The fake's reading of TwiML (the verbs our answers use), the way Twilio executes a document: verbs
 * in order; `<Connect><Stream>` holds the call until the stream's WebSocket closes; `<Reject>` refuses
 * an incoming call; `<Dial>` calls one `<Number>` or `<Sip>` and bridges, or joins a named
 * `<Conference>`; a document Twilio cannot read ends the call (error 12100).
 */
export type Verb =
  | { readonly _tag: "Stream"; readonly url: string; readonly parameters: Readonly<Record<string, string>> }
  | { readonly _tag: "Pause"; readonly seconds: number }
  | { readonly _tag: "Say"; readonly text: string }
  | { readonly _tag: "Hangup" }
  | { readonly _tag: "Redirect"; readonly url: string }
  | { readonly _tag: "Reject"; readonly reason: "busy" | "rejected" }
  /** `<Dial>` of one `<Number>` or `<Sip>`, with the dial's `action` and the leg's `statusCallback`. */
  | {
    readonly _tag: "Dial"
    readonly target: string
    readonly action: string | undefined
    readonly timeoutSeconds: number
    readonly callerId: string | undefined
    readonly statusCallback: string | undefined
    readonly statusEvents: ReadonlySet<string>
  }
  /**
   * `<Dial><Conference>`: the call joins the named room. `startOnEnter` false: it waits on hold music
   * until a participant with it true joins; `endOnExit`: the room ends when this participant leaves.
   */
  | {
    readonly _tag: "Conference"
    readonly name: string
    readonly startOnEnter: boolean
    readonly endOnExit: boolean
    readonly waitUrl: string | undefined
    readonly action: string | undefined
  }

const unescape = (value: string) =>
  value.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&apos;/g, "'").replace(/&amp;/g, "&")

const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\b${name}="([^"]*)"`).exec(tag)
  return match === null ? undefined : unescape(match[1]!)
}

/** The verbs of a TwiML document, or undefined when it is not one Twilio would run. */
export const parse = (xml: string): ReadonlyArray<Verb> | undefined => {
  const body = /<Response>([\s\S]*)<\/Response>\s*$/.exec(xml.replace(/^<\?xml[^>]*\?>/, "").trim())
  if (body === null) return xml.replace(/^<\?xml[^>]*\?>/, "").trim() === "<Response/>" ? [] : undefined
  const verbs: Array<Verb> = []
  const pattern = /<Connect>\s*(<Stream\b[^>]*?(?:\/>|>[\s\S]*?<\/Stream>))\s*<\/Connect>|<Pause\b[^>]*\/>|<Say\b[^>]*>([\s\S]*?)<\/Say>|<Hangup\s*\/>|<Reject\b[^>]*\/>|<Redirect\b[^>]*>([\s\S]*?)<\/Redirect>|<Dial\b[^>]*>([\s\S]*?)<\/Dial>/g
  let rest = body[1]!
  for (let match = pattern.exec(rest); match !== null; match = pattern.exec(rest)) {
    const [whole, stream, said, redirect, dialed] = match
    if (dialed !== undefined && /^\s*<Conference\b/.test(dialed)) {
      const room = /^\s*<Conference\b([^>]*)>([^<]+)<\/Conference>\s*$/.exec(dialed)
      if (room === null) return undefined
      const tag = whole.slice(0, whole.indexOf(">") + 1)
      const flag = (name: string, fallback: boolean) => {
        const value = attribute(room[1]!, name)
        // Twilio refuses anything but "true" and "false" (errors 13231, 13232).
        return value === undefined ? fallback : value === "true" ? true : value === "false" ? false : undefined
      }
      const startOnEnter = flag("startConferenceOnEnter", true)
      const endOnExit = flag("endConferenceOnExit", false)
      if (startOnEnter === undefined || endOnExit === undefined) return undefined
      verbs.push({
        _tag: "Conference",
        name: unescape(room[2]!.trim()),
        startOnEnter,
        endOnExit,
        waitUrl: attribute(room[1]!, "waitUrl"),
        action: attribute(tag, "action")
      })
    } else if (dialed !== undefined) {
      const leg = /^\s*<(Number|Sip)\b([^>]*)>([^<]+)<\/(?:Number|Sip)>\s*$/.exec(dialed)
      if (leg === null) return undefined
      const tag = whole.slice(0, whole.indexOf(">") + 1)
      const action = attribute(tag, "action")
      if (action !== undefined && !/^https?:\/\//.test(action)) return undefined
      verbs.push({
        _tag: "Dial",
        target: unescape(leg[3]!.trim()),
        action,
        timeoutSeconds: Number(attribute(tag, "timeout") ?? "30"),
        callerId: attribute(tag, "callerId"),
        statusCallback: attribute(leg[2]!, "statusCallback"),
        statusEvents: new Set((attribute(leg[2]!, "statusCallbackEvent") ?? "").split(/\s+/).filter((e) => e !== ""))
      })
    } else if (stream !== undefined) {
      const url = attribute(stream, "url")
      if (url === undefined || !/^wss?:\/\//.test(url) || url.includes("?")) return undefined
      const parameters: Record<string, string> = {}
      for (const p of stream.matchAll(/<Parameter\b[^>]*\/>/g)) {
        const name = attribute(p[0], "name")
        const value = attribute(p[0], "value")
        if (name !== undefined && value !== undefined) parameters[name] = value
      }
      verbs.push({ _tag: "Stream", url, parameters })
    } else if (whole.startsWith("<Pause")) {
      verbs.push({ _tag: "Pause", seconds: Number(attribute(whole, "length") ?? "1") })
    } else if (said !== undefined) {
      verbs.push({ _tag: "Say", text: unescape(said) })
    } else if (redirect !== undefined) {
      const url = unescape(redirect.trim())
      if (!/^https?:\/\//.test(url)) return undefined
      verbs.push({ _tag: "Redirect", url })
    } else if (whole.startsWith("<Hangup")) {
      verbs.push({ _tag: "Hangup" })
    } else {
      verbs.push({ _tag: "Reject", reason: attribute(whole, "reason") === "busy" ? "busy" : "rejected" })
    }
  }
  rest = rest.replace(pattern, "").trim()
  return rest === "" ? verbs : undefined
}
