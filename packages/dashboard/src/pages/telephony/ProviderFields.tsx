/**
 * The inputs of one provider's configuration, generated from its metadata (`providerForm.ts`), with
 * each field's description as its hint and the server's or the form's errors under it.
 */
import { Checkbox, Field } from "../agents/ui.js"
import { type FormValues, inputKind, type ProviderMeta } from "./providerForm.js"

export const ProviderFields = ({ editing, errors, meta, onChange, values }: {
  readonly meta: ProviderMeta
  readonly values: FormValues
  readonly errors: Record<string, ReadonlyArray<string>>
  readonly onChange: (values: FormValues) => void
  /** Editing a stored configuration: secrets show masked and are kept unless retyped. */
  readonly editing: boolean
}) => (
  <>
    {meta.fields.map((field) => {
      const kind = inputKind(field)
      const set = (value: string | boolean) => onChange({ ...values, [field.name]: value })
      const value = values[field.name]
      if (kind === "checkbox") {
        return <Checkbox key={field.name} label={field.label} hint={field.description} checked={value === true} onChange={set} />
      }
      const hint = [
        field.description,
        field.sensitive && editing
          ? `Shown masked; leave it as it is to keep the stored ${kind === "password" ? "secret" : "value"}, or type a new one.`
          : undefined,
        kind === "lines" ? "One per line." : undefined
      ].filter((h): h is string => h !== undefined).map((h) => (/[.!?)]$/.test(h) ? h : `${h}.`)).join(" ")
      return (
        <Field key={field.name} label={field.label} required={field.required} hint={hint === "" ? undefined : hint} errors={errors[field.name]}>
          {(props) => {
            const text = typeof value === "string" ? value : ""
            switch (kind) {
              case "password":
                return <input {...props} type="password" autoComplete="new-password" value={text} onChange={(e) => set(e.target.value)} />
              case "textarea":
              case "lines":
              case "json":
                return <textarea {...props} className={kind === "json" ? "mono" : undefined} rows={kind === "textarea" ? 5 : 4} value={text} onChange={(e) => set(e.target.value)} />
              case "number":
                return <input {...props} type="number" inputMode="decimal" step="any" value={text} onChange={(e) => set(e.target.value)} />
              case "readonly":
                return <input {...props} readOnly value={text} />
              default:
                return <input {...props} type="text" autoComplete="off" value={text} onChange={(e) => set(e.target.value)} />
            }
          }}
        </Field>
      )
    })}
  </>
)
