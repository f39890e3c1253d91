import { describe, expect, it } from "@effect/vitest"
import { contextProblems, MAX_CONTEXT_VARIABLES } from "../../src/embed/Embeds.js"
import { DEFAULT_TEXTS, MAX_SETTINGS_BYTES, settingsProblems, widgetConfig } from "../../src/embed/WidgetSettings.js"

describe("widget settings", () => {
  it("accepts the reference's keys and keeps others", () => {
    expect(settingsProblems({
      widgetType: "chat",
      theme: "dark",
      position: "bottom-left",
      size: "large",
      buttonColor: "#10b981",
      buttonText: "Talk to us",
      autoStart: false,
      texts: { voiceReadyTitle: "Ready?" },
      somethingElse: { nested: true }
    })).toEqual([])
  })

  it("lists every key the widget cannot draw safely", () => {
    const problems = settingsProblems({
      widgetType: "video",
      buttonColor: "red; background: url(https://evil)",
      buttonText: "<img src=x onerror=alert(1)>",
      autoStart: "yes",
      texts: { voiceReadyTitle: 3, unknownText: "x", voiceEndCallText: "<b>bye</b>" }
    })
    expect(problems.map((p) => p.field)).toEqual(["widgetType", "buttonColor", "buttonText", "autoStart", "texts.voiceReadyTitle", "texts.unknownText", "texts.voiceEndCallText"])
    expect(settingsProblems({ big: "x".repeat(MAX_SETTINGS_BYTES) })).toEqual([{ field: "", message: expect.stringContaining("at most") }])
  })

  it("draws defaults where settings say nothing, and the token's texts over the default ones", () => {
    expect(widgetConfig({})).toEqual({
      widget_type: "voice",
      texts: DEFAULT_TEXTS,
      theme: "light",
      position: "bottom-right",
      button_text: "Start Voice Call",
      button_color: "#3B82F6",
      size: "medium",
      auto_start: false
    })
    const chat = widgetConfig({ widgetType: "chat", texts: { chatInputPlaceholder: "Ask away" }, autoStart: true })
    expect(chat).toMatchObject({ widget_type: "chat", button_text: "Start Chat", auto_start: true })
    expect(chat.texts).toEqual({ ...DEFAULT_TEXTS, chatInputPlaceholder: "Ask away" })
  })
})

describe("a session's context variables", () => {
  it("takes short scalar values under plain names", () => {
    expect(contextProblems({ first_name: "Ada", visits: 3, member: true })).toEqual([])
  })

  it("refuses reserved names, odd keys, objects, long strings and too many keys", () => {
    expect(contextProblems({ provider: "x", "bad key": 1, nested: { a: 1 }, long: "x".repeat(501), n: Number.NaN }).map((p) => p.key))
      .toEqual(["provider", "bad key", "nested", "long", "n"])
    const many = Object.fromEntries(Array.from({ length: MAX_CONTEXT_VARIABLES + 1 }, (_, i) => [`k${i}`, i]))
    expect(contextProblems(many)[0]!.key).toBe("")
  })
})
