/**
 * Shows a failed call: the API's message, and for a 422 every field at fault. It is an `alert` region,
 * so a screen reader announces it when it appears; a 401 is not shown here (the app shell takes the
 * person back to the login page instead).
 */
import { describeProblem } from "../api/errors.js"

export const ApiError = ({ error, title }: { readonly error: unknown; readonly title?: string }) => {
  if (error === undefined || error === null) return null
  const problem = describeProblem(error)
  if (problem.kind === "unauthorized" || problem.kind === "password-change-required") return null
  return (
    <div className="error" role="alert">
      <p>
        {title !== undefined && <strong>{title}: </strong>}
        {problem.message}
      </p>
      {problem.fields.length > 0 && (
        <ul>
          {problem.fields.map((field, index) => (
            <li key={index}>
              {field.field !== "" && <code>{field.field}</code>} {field.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** The message a form shows next to one field, when the API listed that field. */
export const fieldError = (error: unknown, field: string): string | undefined => {
  if (error === undefined) return undefined
  const problem = describeProblem(error)
  return problem.fields.find((f) => f.field === field)?.message
}
