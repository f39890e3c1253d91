/**
 * A page's main heading. It sets the document title and, after a client-side navigation, takes the
 * keyboard focus (as a full page load would put a screen reader at the top of the new page). The
 * first page of a document leaves the focus where the browser puts it (the skip link is then the
 * first Tab stop).
 */
import { type ReactNode, useEffect, useRef } from "react"
import { useLocation } from "react-router"

/** The history entry the document was loaded at: its headings do not take the focus. */
let loadedAt: string | undefined

export const PageTitle = ({ children, title }: { readonly children: ReactNode; readonly title?: string }) => {
  const ref = useRef<HTMLHeadingElement>(null)
  const { key } = useLocation()
  const text = title ?? (typeof children === "string" ? children : undefined)
  useEffect(() => {
    if (text !== undefined) document.title = `${text} · Agentline`
    loadedAt ??= key
    if (key !== loadedAt) ref.current?.focus()
  }, [text, key])
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  )
}
