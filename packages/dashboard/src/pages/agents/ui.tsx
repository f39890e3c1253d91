/**
 * Small pieces the agents, telephony, campaigns and runs pages share: labelled fields with their error
 * and hint tied to the input (`aria-describedby`), a copy button, dates, polling and id brands.
 */
import { type ReactNode, useEffect, useId, useState } from "react"
import { formatTime } from "../../components/format.js"
import "./pages.css"

/** The dashboard's one date format (`components/format.ts`). */
export const formatDate = formatTime

/** A status or state as a badge; `tone` picks its colour. */
export const Badge = ({ children, tone = "neutral" }: { readonly children: ReactNode; readonly tone?: "neutral" | "good" | "warn" | "bad" | "info" }) => (
  <span className={`badge badge-${tone}`}>{children}</span>
)

interface FieldProps {
  readonly label: string
  readonly hint?: string | undefined
  readonly errors?: ReadonlyArray<string> | undefined
  readonly required?: boolean | undefined
  /** Renders the input with the ids it must carry. */
  readonly children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean; required?: boolean }) => ReactNode
}

/** A label, the input, its hint and its errors; the input is described by the hint and errors. */
export const Field = ({ children, errors, hint, label, required }: FieldProps) => {
  const id = useId()
  const hintId = `${id}-hint`
  const errorId = `${id}-error`
  const hasErrors = errors !== undefined && errors.length > 0
  const describedBy = [hint !== undefined ? hintId : null, hasErrors ? errorId : null].filter((x) => x !== null).join(" ")
  return (
    <div className="field">
      {/* The asterisk is drawn by CSS (with empty alternative text): the input's `required` already says it to screen readers. */}
      <label htmlFor={id} className={required === true ? "required" : undefined}>{label}</label>
      {children({
        id,
        ...(describedBy !== "" ? { "aria-describedby": describedBy } : {}),
        ...(hasErrors ? { "aria-invalid": true } : {}),
        ...(required === true ? { required: true } : {})
      })}
      {hint !== undefined && <p className="hint" id={hintId}>{hint}</p>}
      {hasErrors && (
        <p className="field-error" id={errorId}>
          {errors.join(" ")}
        </p>
      )}
    </div>
  )
}

/** A checkbox with its label after it; the label is the click target too. */
export const Checkbox = ({ checked, hint, label, onChange }: {
  readonly label: string
  readonly checked: boolean
  readonly onChange: (checked: boolean) => void
  readonly hint?: string | undefined
}) => {
  const id = useId()
  return (
    <div className="checkbox">
      <input id={id} type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
      {hint !== undefined && <p className="hint">{hint}</p>}
    </div>
  )
}

/** Copies `text`; says so in a live region (screen readers hear "Copied"). */
export const CopyButton = ({ label, text }: { readonly text: string; readonly label: string }) => {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle")
  useEffect(() => {
    if (state === "idle") return
    const timer = setTimeout(() => setState("idle"), 2000)
    return () => clearTimeout(timer)
  }, [state])
  const copy = () => {
    const done = () => setState("copied")
    if (navigator.clipboard !== undefined) {
      navigator.clipboard.writeText(text).then(done, () => setState(fallbackCopy(text) ? "copied" : "failed"))
    } else setState(fallbackCopy(text) ? "copied" : "failed")
  }
  return (
    <>
      <button type="button" onClick={copy} aria-label={label}>Copy</button>
      <span role="status" className="copy-status">{state === "copied" ? "Copied" : state === "failed" ? "Copy failed: select the text" : ""}</span>
    </>
  )
}

// Pages served over plain http (other than localhost) have no clipboard API.
const fallbackCopy = (text: string): boolean => {
  const area = document.createElement("textarea")
  area.value = text
  area.setAttribute("readonly", "")
  area.className = "visually-hidden"
  document.body.appendChild(area)
  area.select()
  let ok = false
  try {
    ok = document.execCommand("copy")
  } catch {
    ok = false
  }
  area.remove()
  return ok
}

/** A value with a copy button next to it. */
export const Copyable = ({ label, value }: { readonly label: string; readonly value: string }) => (
  <div className="copyable">
    <span className="copyable-label">{label}</span>
    <code>{value}</code>
    <CopyButton text={value} label={`Copy ${label}`} />
  </div>
)

/** Calls `tick` every `ms` while `active` (the live views poll the API this way). */
export const useInterval = (tick: () => void, ms: number, active: boolean) => {
  useEffect(() => {
    if (!active) return
    const timer = setInterval(tick, ms)
    return () => clearInterval(timer)
  }, [tick, ms, active])
}

/** The absolute address of an API path on this server (trigger URLs are shown for use elsewhere). */
export const apiUrl = (path: string): string => `${window.location.origin}/api/v1${path}`

/** A number from a route parameter, or undefined when it is not one. */
export const routeId = (param: string | undefined): number | undefined => {
  if (param === undefined || !/^\d+$/.test(param)) return undefined
  const n = Number(param)
  return Number.isSafeInteger(n) ? n : undefined
}

export const Loading = ({ what }: { readonly what: string }) => <p className="loading" role="status">Loading {what}…</p>

/** One column of `RowFields`: a text field of the row, or a select when `options` are given. */
export interface RowColumn<T> {
  readonly label: string
  readonly key: keyof T & string
  readonly options?: ReadonlyArray<string>
}

/**
 * Editable rows of a list (variables, headers): a labelled field per column ("Variable 2 name") and a
 * "Remove variable 2" button per row. Each row field is a string.
 */
export const RowFields = <T extends object>({ columns, noun, onChange, rows }: {
  readonly rows: ReadonlyArray<T>
  /** Capitalized, e.g. `Variable`. */
  readonly noun: string
  readonly columns: ReadonlyArray<RowColumn<T>>
  readonly onChange: (rows: ReadonlyArray<T>) => void
}) => (
  <>
    {rows.map((row, index) => {
      const set = (key: keyof T & string, value: string) =>
        onChange(rows.map((r, i) => (i === index ? { ...r, [key]: value } : r)))
      return (
        <div className="row-fields" key={index}>
          {columns.map((column) => (
            <Field key={column.key} label={`${noun} ${index + 1} ${column.label}`}>
              {(props) =>
                column.options === undefined
                  ? <input {...props} value={String(row[column.key])} onChange={(e) => set(column.key, e.target.value)} />
                  : (
                    <select {...props} value={String(row[column.key])} onChange={(e) => set(column.key, e.target.value)}>
                      {column.options.map((o) => <option key={o} value={o}>{o}</option>)}
                    </select>
                  )}
            </Field>
          ))}
          <button type="button" className="danger" onClick={() => onChange(rows.filter((_, i) => i !== index))}>
            Remove {noun.toLowerCase()} {index + 1}
          </button>
        </div>
      )
    })}
  </>
)
