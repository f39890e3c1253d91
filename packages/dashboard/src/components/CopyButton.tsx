/**
 * Copies a text to the clipboard and says so (in a live region, for screen readers). Falls back to
 * selecting the text in `fallbackInputId` when the Clipboard API is refused, so the person can copy it.
 */
import { useState } from "react"

export const CopyButton = (
  { text, label, fallbackInputId }: { readonly text: string; readonly label: string; readonly fallbackInputId?: string }
) => {
  const [status, setStatus] = useState<"idle" | "copied" | "select">("idle")
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setStatus("copied")
    } catch {
      if (fallbackInputId !== undefined) {
        const input = document.getElementById(fallbackInputId)
        if (input instanceof HTMLInputElement) {
          input.focus()
          input.select()
        }
      }
      setStatus("select")
    }
  }
  return (
    <>
      <button type="button" onClick={copy}>{label}</button>
      <span role="status" className="hint">
        {status === "copied" ? "Copied to the clipboard." : status === "select" ? "Press Ctrl+C (⌘C) to copy the selected key." : ""}
      </span>
    </>
  )
}
