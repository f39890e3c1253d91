/**
 * A campaign's settings as form fields, each with its bounds and default in the hint: calls at once,
 * retries, the circuit breaker and the calling schedule (weekly windows in a time zone).
 */
import { Checkbox, Field } from "../agents/ui.js"
import {
  BREAKER_NUMBERS,
  CONCURRENCY,
  DAY_NAMES,
  type NumberSetting,
  RETRY_FLAGS,
  RETRY_NUMBERS,
  type SettingsForm,
  type SlotInput
} from "./campaignView.js"

const hintOf = (spec: Omit<NumberSetting, "default"> & { readonly default?: number }) =>
  `${spec.help !== undefined ? `${spec.help}. ` : ""}${spec.min} to ${spec.max}${spec.default !== undefined ? `, default ${spec.default}` : ""}`

export const SettingsFields = ({ errors, form, onChange }: {
  readonly form: SettingsForm
  readonly onChange: (form: SettingsForm) => void
  /** By the API's field path (`retry_config.max_retries`, `schedule_config.slots.0.end_time`…). */
  readonly errors: Readonly<Record<string, ReadonlyArray<string>>>
}) => {
  const errorsAt = (path: string) => Object.entries(errors).filter(([key]) => key === path || key.startsWith(`${path}.`)).flatMap(([, m]) => m)
  const number = (spec: Omit<NumberSetting, "default"> & { readonly default?: number }, value: string, set: (v: string) => void, path: string) => (
    <Field key={spec.name} label={spec.label} hint={hintOf(spec)} errors={errorsAt(path)}>
      {(props) => <input {...props} type="number" inputMode="decimal" min={spec.min} max={spec.max} step={spec.step} value={value} onChange={(e) => set(e.target.value)} />}
    </Field>
  )
  const setSlot = (index: number, slot: SlotInput) => onChange({ ...form, slots: form.slots.map((s, i) => (i === index ? slot : s)) })
  return (
    <>
      <fieldset>
        <legend>Dialing</legend>
        {number(CONCURRENCY, form.maxConcurrency, (v) => onChange({ ...form, maxConcurrency: v }), "max_concurrency")}
      </fieldset>
      <fieldset>
        <legend>Retries</legend>
        {RETRY_FLAGS.map((f) => (
          <Checkbox key={f.name} label={f.label} checked={form.retry[f.name] === true} onChange={(c) => onChange({ ...form, retry: { ...form.retry, [f.name]: c } })} />
        ))}
        {RETRY_NUMBERS.map((spec) =>
          number(spec, String(form.retry[spec.name] ?? ""), (v) => onChange({ ...form, retry: { ...form.retry, [spec.name]: v } }), `retry_config.${spec.name}`)
        )}
        {errorsAt("retry_config").length > 0 && <p className="field-error">{errorsAt("retry_config").join(" ")}</p>}
      </fieldset>
      <fieldset>
        <legend>Circuit breaker</legend>
        <Checkbox
          label="Pause the campaign when too many calls fail"
          checked={form.breaker.enabled === true}
          onChange={(c) => onChange({ ...form, breaker: { ...form.breaker, enabled: c } })}
        />
        {BREAKER_NUMBERS.map((spec) =>
          number(spec, String(form.breaker[spec.name] ?? ""), (v) => onChange({ ...form, breaker: { ...form.breaker, [spec.name]: v } }), `circuit_breaker.${spec.name}`)
        )}
      </fieldset>
      <fieldset>
        <legend>Calling schedule</legend>
        <Checkbox
          label="Call only within set weekly windows"
          hint="Without a schedule, calls are placed at any time"
          checked={form.scheduleEnabled}
          onChange={(c) => onChange({ ...form, scheduleEnabled: c })}
        />
        {form.scheduleEnabled && (
          <>
            <Field label="Time zone" hint="An IANA zone such as America/New_York or Europe/London" errors={errorsAt("schedule_config.timezone")}>
              {(props) => <input {...props} value={form.timezone} autoComplete="off" onChange={(e) => onChange({ ...form, timezone: e.target.value })} />}
            </Field>
            {form.slots.map((slot, index) => (
              <div className="row-fields" key={index}>
                <Field label={`Window ${index + 1} day`}>
                  {(props) => (
                    <select {...props} value={slot.day_of_week} onChange={(e) => setSlot(index, { ...slot, day_of_week: Number(e.target.value) })}>
                      {DAY_NAMES.map((d, i) => <option key={d} value={i}>{d}</option>)}
                    </select>
                  )}
                </Field>
                <Field label={`Window ${index + 1} from`} errors={errorsAt(`schedule_config.slots.${index}.start_time`)}>
                  {(props) => <input {...props} type="time" value={slot.start_time} onChange={(e) => setSlot(index, { ...slot, start_time: e.target.value })} />}
                </Field>
                <Field label={`Window ${index + 1} until`} hint="Before the start: runs overnight" errors={errorsAt(`schedule_config.slots.${index}.end_time`)}>
                  {(props) => <input {...props} type="time" value={slot.end_time} onChange={(e) => setSlot(index, { ...slot, end_time: e.target.value })} />}
                </Field>
                <button type="button" className="danger" onClick={() => onChange({ ...form, slots: form.slots.filter((_, i) => i !== index) })}>
                  Remove window {index + 1}
                </button>
              </div>
            ))}
            <div className="actions">
              <button type="button" onClick={() => onChange({ ...form, slots: [...form.slots, { day_of_week: 0, start_time: "09:00", end_time: "17:00" }] })}>
                Add a window
              </button>
              <button
                type="button"
                onClick={() => onChange({ ...form, slots: [0, 1, 2, 3, 4].map((day) => ({ day_of_week: day, start_time: "09:00", end_time: "17:00" })) })}
              >
                Weekdays 09:00–17:00
              </button>
            </div>
            {errorsAt("schedule_config.slots").length > 0 && form.slots.length === 0 && (
              <p className="field-error">{errorsAt("schedule_config.slots").join(" ")}</p>
            )}
          </>
        )}
      </fieldset>
    </>
  )
}

/** A 422's items by field path without the leading `body`, merged with the form's own problems. */
export const settingsErrors = (error: unknown, local: Readonly<Record<string, string>>): Record<string, ReadonlyArray<string>> => {
  const out: Record<string, Array<string>> = {}
  for (const [key, message] of Object.entries(local)) (out[key] ??= []).push(message)
  const e = error as { _tag?: string; detail?: unknown } | undefined
  if (e?._tag === "ValidationError" && Array.isArray(e.detail)) {
    for (const issue of e.detail as ReadonlyArray<{ loc?: ReadonlyArray<unknown>; msg?: string }>) {
      const loc = (issue.loc ?? []).filter((part, index) => !(index === 0 && part === "body")).map(String).join(".")
      ;(out[loc] ??= []).push(issue.msg ?? "is invalid")
    }
  }
  return out
}
