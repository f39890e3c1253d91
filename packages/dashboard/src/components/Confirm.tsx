/**
 * A destructive action behind a confirmation: the button ("Delete …") shows "Yes, …" and "Cancel" in
 * a group named "Confirm"; the confirmation takes the focus, so Enter confirms and Tab reaches Cancel.
 */
import { useEffect, useRef, useState } from "react"

export const ConfirmButton = ({ confirm, disabled = false, label, onConfirm, subject }: {
  /** The button's text ("Delete"), followed by what it acts on in its accessible name. */
  readonly label: string
  /** What it acts on, for screen readers only ("Delete" reads "Delete Orders"). */
  readonly subject?: string
  /** The confirmation's text ("Yes, delete “Orders”"). */
  readonly confirm: string
  readonly onConfirm: () => void
  readonly disabled?: boolean
}) => {
  const [asking, setAsking] = useState(false)
  const yes = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (asking) yes.current?.focus()
  }, [asking])
  if (!asking) {
    return (
      <button type="button" className="danger" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
        {subject !== undefined && <span className="visually-hidden">{` ${subject}`}</span>}
      </button>
    )
  }
  return (
    <span role="group" aria-label="Confirm" className="confirm">
      <button ref={yes} type="button" className="danger" onClick={() => { setAsking(false); onConfirm() }}>{confirm}</button>{" "}
      <button type="button" onClick={() => setAsking(false)}>Cancel</button>
    </span>
  )
}
