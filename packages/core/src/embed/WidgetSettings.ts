/**
 * An embed token's `settings`: how the widget looks and what it says, in the reference's keys. The
 * widget draws them on other people's pages, so the keys it reads are checked (a colour is a colour, a
 * text is short plain text) and the whole is kept small; other keys are kept as they are. Pure.
 */
import type { WidgetTexts, WidgetType } from "@agentline/api/embed/Embed"

/** The texts a widget shows when the token's `settings.texts` does not say otherwise (the reference's). */
export const DEFAULT_TEXTS: WidgetTexts = {
  endChatText: "End chat",
  conversationEndedText: "Conversation ended.",
  startNewChatText: "Start new chat",
  chatRetryText: "Retry",
  chatInputPlaceholder: "Type a message…",
  sendMessageLabel: "Send message",
  closeChatLabel: "Close chat",
  voiceConnectingText: "Connecting…",
  voiceEndCallText: "End Call",
  voiceRetryText: "Retry",
  voiceReadyTitle: "Ready to Connect",
  voiceConnectingSubtext: "Please wait while we establish the connection",
  voiceConnectedTitle: "Connected",
  voiceConnectedSubtext: "Your voice call is now active",
  voiceCallEndedTitle: "Call ended",
  voiceCallEndedSubtext: "Click below to start a new call",
  voiceConnectionFailedTitle: "Connection failed",
  voiceConnectionFailedSubtext: "Please check your microphone and try again",
  voiceConnectionLostTitle: "Connection lost",
  voiceConnectionLostSubtext: "The call has been disconnected"
}

export const MAX_SETTINGS_BYTES = 16 * 1024
const MAX_TEXT = 200

const choices = {
  widgetType: ["voice", "chat"],
  theme: ["light", "dark"],
  position: ["bottom-right", "bottom-left", "top-right", "top-left"],
  size: ["small", "medium", "large"]
} as const

export interface SettingsProblem {
  /** The key at fault (`buttonColor`, `texts.voiceReadyTitle`); empty for the settings as a whole. */
  readonly field: string
  readonly message: string
}

const isPlainText = (value: string) => !/[<>\u0000-\u0008\u000b\u000c\u000e-\u001f]/.test(value)

/** Every problem of `settings`, or none. */
export const settingsProblems = (settings: Record<string, unknown>): ReadonlyArray<SettingsProblem> => {
  const problems: Array<SettingsProblem> = []
  const size = new TextEncoder().encode(JSON.stringify(settings)).length
  if (size > MAX_SETTINGS_BYTES) problems.push({ field: "", message: `settings take ${size} bytes as JSON; at most ${MAX_SETTINGS_BYTES} are allowed` })
  for (const [key, allowed] of Object.entries(choices)) {
    const value = settings[key]
    if (value !== undefined && !(allowed as ReadonlyArray<unknown>).includes(value)) {
      problems.push({ field: key, message: `${key} must be one of ${allowed.join(", ")}` })
    }
  }
  const color = settings.buttonColor
  if (color !== undefined && !(typeof color === "string" && /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(color))) {
    problems.push({ field: "buttonColor", message: "buttonColor must be a hex colour such as #3B82F6" })
  }
  const text = settings.buttonText
  if (text !== undefined && !(typeof text === "string" && text.trim() !== "" && text.length <= 60 && isPlainText(text))) {
    problems.push({ field: "buttonText", message: "buttonText must be plain text of 1 to 60 characters" })
  }
  if (settings.autoStart !== undefined && typeof settings.autoStart !== "boolean") {
    problems.push({ field: "autoStart", message: "autoStart must be true or false" })
  }
  const texts = settings.texts
  if (texts !== undefined) {
    if (typeof texts !== "object" || texts === null || Array.isArray(texts)) {
      problems.push({ field: "texts", message: "texts must be an object of the widget's texts by name" })
    } else {
      for (const [key, value] of Object.entries(texts)) {
        if (!Object.hasOwn(DEFAULT_TEXTS, key)) {
          problems.push({ field: `texts.${key}`, message: `texts.${key} is not a text of the widget; the texts are ${Object.keys(DEFAULT_TEXTS).join(", ")}` })
        } else if (!(typeof value === "string" && value.length <= MAX_TEXT && isPlainText(value))) {
          problems.push({ field: `texts.${key}`, message: `texts.${key} must be plain text of at most ${MAX_TEXT} characters` })
        }
      }
    }
  }
  return problems
}

const pick = <A extends string>(value: unknown, allowed: ReadonlyArray<A>, fallback: A): A =>
  (allowed as ReadonlyArray<unknown>).includes(value) ? (value as A) : fallback

/** The widget's type, look and texts from checked settings, with the reference's defaults. */
export const widgetConfig = (settings: Record<string, unknown>) => {
  const texts = typeof settings.texts === "object" && settings.texts !== null ? settings.texts as Record<string, unknown> : {}
  const widgetType: WidgetType = settings.widgetType === "chat" ? "chat" : "voice"
  const resolved: { -readonly [K in keyof WidgetTexts]: string } = { ...DEFAULT_TEXTS }
  for (const key of Object.keys(DEFAULT_TEXTS) as Array<keyof WidgetTexts>) {
    const own = texts[key]
    if (typeof own === "string") resolved[key] = own
  }
  return {
    widget_type: widgetType,
    texts: resolved,
    theme: pick(settings.theme, choices.theme, "light"),
    position: pick(settings.position, choices.position, "bottom-right"),
    button_text: typeof settings.buttonText === "string" ? settings.buttonText : widgetType === "chat" ? "Start Chat" : "Start Voice Call",
    button_color: typeof settings.buttonColor === "string" ? settings.buttonColor : "#3B82F6",
    size: pick(settings.size, choices.size, "medium"),
    auto_start: settings.autoStart === true
  }
}
