/**
 * The form of the selected node or edge: its fields (from `nodeFields.ts`, the server's node-type
 * catalog), each with the server's errors for that field under it. Fields the catalog shows only under
 * conditions (a recording id while the type is "Recording") appear when they hold, or when the server
 * found a problem with them. Changes apply to the editor's graph at once; Save sends the graph.
 */
import { useId, useState } from "react"
import type { JsonObject } from "./definitionGraph.js"
import { fieldMessages, type FieldMessages } from "./definitionIssues.js"
import { applyInput, displayValue, type FieldSpec, newRow, type Row, rowsOf, visibleFields, withRows } from "./nodeFields.js"
import { Checkbox, Field, RowFields } from "./ui.js"

interface FormProps {
  readonly fields: ReadonlyArray<FieldSpec>
  readonly data: JsonObject
  readonly issues: FieldMessages | undefined
  readonly onChange: (data: JsonObject) => void
}

/** Every field of a node or edge; `key` the form by the item's id so drafts do not leak between items. */
export const DataForm = ({ data, fields, issues, onChange }: FormProps) => (
  <div className="data-form">
    {visibleFields(fields, data, (name) => fieldMessages(issues, name).length > 0).map((field) => (
      <FieldInput key={field.name} field={field} data={data} errors={fieldMessages(issues, field.name)} onChange={onChange} />
    ))}
  </div>
)

/** What an input left empty means: the server's default, when it has one. */
const defaultLabel = (field: FieldSpec): string => {
  if (field.defaultValue === undefined) return "(not set)"
  const option = field.options?.find((o) => o.value === field.defaultValue)
  return `(default: ${option?.label ?? String(field.defaultValue)})`
}

const FieldInput = ({ data, errors, field, onChange }: {
  readonly field: FieldSpec
  readonly data: JsonObject
  readonly errors: ReadonlyArray<string>
  readonly onChange: (data: JsonObject) => void
}) => {
  // Numbers and JSON being typed are kept as text until they are values.
  const [draft, setDraft] = useState<{ text: string; error: string } | null>(null)
  const set = (input: string | boolean) => {
    const result = applyInput(data, field, input)
    if ("error" in result) setDraft({ text: String(input), error: result.error })
    else {
      setDraft(null)
      onChange(result.data)
    }
  }
  if (field.kind === "checkbox") {
    return <Checkbox label={field.label} checked={displayValue(data, field) === true} onChange={set} hint={field.help} />
  }
  if (field.kind === "rows") {
    return <RowsInput field={field} data={data} errors={errors} onChange={onChange} />
  }
  const value = draft?.text ?? String(displayValue(data, field))
  const allErrors = draft === null ? errors : [draft.error, ...errors]
  return (
    <Field label={field.label} hint={field.help} errors={allErrors} required={field.required}>
      {(props) => {
        switch (field.kind) {
          case "textarea":
          case "lines":
          case "json":
            return (
              <textarea
                {...props}
                className={field.kind === "json" ? "mono" : undefined}
                rows={field.kind === "textarea" ? 5 : 4}
                {...(field.placeholder !== undefined ? { placeholder: field.placeholder } : {})}
                value={value}
                onChange={(e) => set(e.target.value)}
              />
            )
          case "select":
            return (
              <select {...props} value={value} onChange={(e) => set(e.target.value)}>
                <option value="">{defaultLabel(field)}</option>
                {(field.options ?? []).map((option) => <option key={option.value} value={option.value}>{option.label}</option>)}
              </select>
            )
          case "number":
            return (
              <input
                {...props}
                type="number"
                inputMode="decimal"
                {...(field.min !== undefined ? { min: field.min } : {})}
                {...(field.max !== undefined ? { max: field.max } : {})}
                step={field.step ?? "any"}
                {...(field.defaultValue !== undefined ? { placeholder: `default ${String(field.defaultValue)}` } : {})}
                value={value}
                onChange={(e) => set(e.target.value)}
              />
            )
          case "secret":
            return <input {...props} type="password" autoComplete="off" value={value} onChange={(e) => set(e.target.value)} />
          default:
            return (
              <input
                {...props}
                type="text"
                {...(field.placeholder !== undefined ? { placeholder: field.placeholder } : {})}
                value={value}
                onChange={(e) => set(e.target.value)}
              />
            )
        }
      }}
    </Field>
  )
}

/** A list of rows (extraction variables, headers): a field per column of each row, as the catalog declares them. */
const RowsInput = ({ data, errors, field, onChange }: {
  readonly field: FieldSpec
  readonly data: JsonObject
  readonly errors: ReadonlyArray<string>
  readonly onChange: (data: JsonObject) => void
}) => {
  const rows = rowsOf(data, field)
  const legend = useId()
  const noun = field.noun ?? "Row"
  const update = (next: ReadonlyArray<Row>) => onChange(withRows(data, field, next))
  return (
    <fieldset className="rows" aria-labelledby={legend}>
      <legend id={legend}>{field.label}</legend>
      {field.help !== undefined && <p className="hint">{field.help}</p>}
      {rows.length === 0 && <p className="hint">None.</p>}
      <RowFields
        rows={rows}
        noun={noun}
        columns={(field.columns ?? []).map((column) => ({
          label: column.label.toLowerCase(),
          key: column.name,
          ...(column.options !== undefined ? { options: column.options.map((o) => o.value) } : {})
        }))}
        onChange={update}
      />
      <button type="button" onClick={() => update([...rows, newRow(field)])}>Add {noun.toLowerCase()}</button>
      {errors.length > 0 && <p className="field-error">{errors.join(" ")}</p>}
    </fieldset>
  )
}
