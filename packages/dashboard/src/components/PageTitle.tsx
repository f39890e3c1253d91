/**
 * A page's main heading. It sets the document title and, after a client-side navigation, takes the
 * keyboard focus (as a full page load would put a screen reader at the top of the new page).
 */
import { type ReactNode, useEffect, useRef } from "react"

export const PageTitle = ({ children, title }: { readonly children: ReactNode; readonly title?: string }) => {
  const ref = useRef<HTMLHeadingElement>(null)
  const text = title ?? (typeof children === "string" ? children : undefined)
  useEffect(() => {
    if (text !== undefined) document.title = `${text} · Agentline`
    ref.current?.focus()
  }, [text])
  return (
    <h1 ref={ref} tabIndex={-1}>
      {children}
    </h1>
  )
}
