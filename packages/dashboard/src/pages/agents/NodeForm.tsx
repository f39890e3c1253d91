/**
 * The form of the selected node or edge: its fields (from `nodeFields.ts`), each with the server's
 * errors for that field under it. Changes apply to the editor's graph at once; Save sends the graph.
 */
import { useId, useState } from "react"
import type { JsonObject } from "./definitionGraph.js"
import { fieldMessages, type FieldMessages } from "./definitionIssues.js"
import {
  applyInput,
  displayValue,
  EXTRACTION_TYPES,
  type ExtractionVariable,
  extractionRows,
  type FieldSpec,
  type Header,
  headerRows,
  withExtractionRows,
  withHeaderRows
} from "./nodeFields.js"
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
    {fields.map((field) => (
      <FieldInput key={field.name} field={field} data={data} errors={fieldMessages(issues, field.name)} onChange={onChange} />
    ))}
  </div>
)

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
  if (field.kind === "extractionVariables") {
    return <ExtractionRows field={field} data={data} errors={errors} onChange={onChange} />
  }
  if (field.kind === "headers") {
    return <HeaderRows field={field} data={data} errors={errors} onChange={onChange} />
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
                value={value}
                onChange={(e) => set(e.target.value)}
              />
            )
          case "select":
            return (
              <select {...props} value={value} onChange={(e) => set(e.target.value)}>
                <option value="">(default)</option>
                {(field.options ?? []).map((option) => <option key={option} value={option}>{option}</option>)}
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
                value={value}
                onChange={(e) => set(e.target.value)}
              />
            )
          case "secret":
            return <input {...props} type="password" autoComplete="off" value={value} onChange={(e) => set(e.target.value)} />
          default:
            return <input {...props} type="text" value={value} onChange={(e) => set(e.target.value)} />
        }
      }}
    </Field>
  )
}

const ExtractionRows = ({ data, errors, field, onChange }: {
  readonly field: FieldSpec
  readonly data: JsonObject
  readonly errors: ReadonlyArray<string>
  readonly onChange: (data: JsonObject) => void
}) => {
  const rows = extractionRows(data)
  const legend = useId()
  const update = (next: ReadonlyArray<ExtractionVariable>) => onChange(withExtractionRows(data, next))
  return (
    <fieldset className="rows" aria-labelledby={legend}>
      <legend id={legend}>{field.label}</legend>
      {rows.length === 0 && <p className="hint">None.</p>}
      <RowFields
        rows={rows}
        noun="Variable"
        columns={[{ label: "name", key: "name" }, { label: "type", key: "type", options: EXTRACTION_TYPES }, { label: "description", key: "prompt" }]}
        onChange={update}
      />
      <button type="button" onClick={() => update([...rows, { name: "", type: "string", prompt: "" }])}>Add variable</button>
      {errors.length > 0 && <p className="field-error">{errors.join(" ")}</p>}
    </fieldset>
  )
}

const HeaderRows = ({ data, errors, field, onChange }: {
  readonly field: FieldSpec
  readonly data: JsonObject
  readonly errors: ReadonlyArray<string>
  readonly onChange: (data: JsonObject) => void
}) => {
  const rows = headerRows(data)
  const legend = useId()
  const update = (next: ReadonlyArray<Header>) => onChange(withHeaderRows(data, next))
  return (
    <fieldset className="rows" aria-labelledby={legend}>
      <legend id={legend}>{field.label}</legend>
      {rows.length === 0 && <p className="hint">None.</p>}
      <RowFields rows={rows} noun="Header" columns={[{ label: "name", key: "key" }, { label: "value", key: "value" }]} onChange={update} />
      <button type="button" onClick={() => update([...rows, { key: "", value: "" }])}>Add header</button>
      {errors.length > 0 && <p className="field-error">{errors.join(" ")}</p>}
    </fieldset>
  )
}
