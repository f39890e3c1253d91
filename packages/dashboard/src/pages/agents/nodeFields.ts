/**
 * The form of each node type and of an edge: which fields, how each is edited, when each is shown, and
 * how a form value becomes the definition's JSON and back. The fields are the server's node-type catalog
 * (`@agentline/api/workflows/NodeTypes`, what `GET /api/v1/node-types` serves), which is also what the
 * server validates a definition with: labels, help, required, bounds, allowed values and visibility
 * all come from there, so what the form offers is what a save accepts. Fields the form does not know
 * stay in `data` untouched.
 */
import type { PropertySpec } from "@agentline/api/workflows/NodeSpec"
import { byNodeType, EDGE_PROPERTY_SPECS, NODE_TYPE_DECLARATIONS, type NodeType } from "@agentline/api/workflows/NodeTypes"
import type { JsonObject } from "./definitionGraph.js"

export type FieldKind =
  | "text"
  | "secret"
  | "textarea"
  | "checkbox"
  | "select"
  | "number"
  /** A list of strings, one per line. */
  | "lines"
  /** Any JSON object, typed as text. */
  | "json"
  /** A list of rows, each with the `columns` fields. */
  | "rows"
  /** The organization's tools, chosen from a list (`tool_uuids`); it also edits the step's MCP choices. */
  | "tools"
  /** Edited by the step's `tools` field (`mcp_tool_filters`), not on its own. */
  | "tool-filters"

export interface FieldOption {
  readonly value: string
  readonly label: string
}

export interface FieldSpec {
  readonly name: string
  readonly label: string
  readonly kind: FieldKind
  readonly required?: boolean
  readonly help?: string
  readonly placeholder?: string
  readonly options?: ReadonlyArray<FieldOption>
  readonly min?: number
  readonly max?: number
  readonly step?: number
  /** What the server does when the field is absent (the form shows it, and visibility rules read it). */
  readonly defaultValue?: unknown
  /** The catalog's `display_options`: when the field is shown. */
  readonly display?: PropertySpec["display_options"]
  /** For `rows`: the fields of each row, and what one row is called ("Variable 2 name"). */
  readonly columns?: ReadonlyArray<FieldSpec>
  readonly noun?: string
}

/** What one row of a list is called in its fields' labels; the catalog has no word for it. */
const ROW_NOUNS: Readonly<Record<string, string>> = { extraction_variables: "Variable", custom_headers: "Header" }

/** The field the `tools` field edits besides its own. */
export const TOOL_FILTERS = "mcp_tool_filters"

const kindOf = (property: PropertySpec): FieldKind => {
  switch (property.type) {
    case "boolean":
      return "checkbox"
    case "number":
      return "number"
    case "options":
      return "select"
    case "fixed_collection":
      return "rows"
    case "json":
      return property.name === TOOL_FILTERS ? "tool-filters" : "json"
    case "tool_refs":
      return "tools"
    case "multi_options":
    case "document_refs":
      return "lines"
    case "mention_textarea":
      return "textarea"
    default:
      return property.editor === "textarea" ? "textarea" : property.editor === "password" ? "secret" : "text"
  }
}

/** The form field of a catalog property. */
export const fieldOf = (property: PropertySpec): FieldSpec => {
  const kind = kindOf(property)
  return {
    name: property.name,
    label: property.display_name,
    kind,
    ...(property.required ? { required: true } : {}),
    help: property.description,
    ...(property.placeholder !== null ? { placeholder: property.placeholder } : {}),
    ...(property.options !== null ? { options: property.options.map((o) => ({ value: String(o.value), label: o.label })) } : {}),
    ...(property.min_value !== null ? { min: property.min_value } : {}),
    ...(property.max_value !== null ? { max: property.max_value } : {}),
    ...(kind === "number" && property.renderer_options?.number_input?.fractional !== true ? { step: 1 } : {}),
    ...(property.default !== null ? { defaultValue: property.default } : {}),
    ...(property.display_options !== null ? { display: property.display_options } : {}),
    ...(property.properties !== null ? { columns: property.properties.map(fieldOf), noun: ROW_NOUNS[property.name] ?? "Row" } : {})
  }
}

/** The form of each node type: its catalog properties, in the catalog's order. */
export const NODE_FIELDS: { readonly [T in NodeType]: ReadonlyArray<FieldSpec> } = byNodeType((type) =>
  NODE_TYPE_DECLARATIONS[type].spec.properties.map(fieldOf)
)

export const EDGE_FIELDS: ReadonlyArray<FieldSpec> = EDGE_PROPERTY_SPECS.map(fieldOf)

/** A field's value for the visibility rules: what `data` has, else its default, else null. */
const effectiveValue = (data: JsonObject, fields: ReadonlyArray<FieldSpec>, name: string): unknown =>
  data[name] ?? fields.find((f) => f.name === name)?.defaultValue ?? null

/**
 * Whether `field` is shown for `data`, by the catalog's `display_options`: `show` while every named
 * field has one of its listed values, and not while any `hide` field has one of its values. Hidden
 * fields keep their values.
 */
export const isShown = (field: FieldSpec, data: JsonObject, fields: ReadonlyArray<FieldSpec>): boolean => {
  const show = Object.entries(field.display?.show ?? {})
  const hide = Object.entries(field.display?.hide ?? {})
  return show.every(([name, values]) => values.includes(effectiveValue(data, fields, name))) &&
    !hide.some(([name, values]) => values.includes(effectiveValue(data, fields, name)))
}

/** The fields the form shows for `data`: those `isShown`, and any the server found a problem with. */
export const visibleFields = (
  fields: ReadonlyArray<FieldSpec>,
  data: JsonObject,
  hasProblem: (name: string) => boolean = () => false
): ReadonlyArray<FieldSpec> => fields.filter((field) => isShown(field, data, fields) || hasProblem(field.name))

// ------------------------------------------------------------------------------------------ values

/** A field's value as its input shows it: a string for text-like inputs, a boolean for checkboxes (absent: its default). */
export const displayValue = (data: JsonObject, field: FieldSpec): string | boolean => {
  const value = data[field.name]
  switch (field.kind) {
    case "checkbox":
      return (value ?? field.defaultValue) === true
    // Tools and their MCP filters have their own picker (NodeForm's ToolsField); as text they are lines and JSON.
    case "lines":
    case "tools":
      return Array.isArray(value) ? value.map(String).join("\n") : ""
    case "json":
    case "tool-filters":
      return value === undefined || value === null ? "" : JSON.stringify(value, null, 2)
    case "number":
      return typeof value === "number" ? String(value) : ""
    case "rows":
      return ""
    default:
      return typeof value === "string" ? value : ""
  }
}

const without = (data: JsonObject, key: string): JsonObject => {
  const { [key]: _removed, ...rest } = data
  return rest
}

/**
 * `data` with the field set from its input, or the reason the input is not a value yet (a number or
 * JSON being typed). An emptied optional field is removed (the server's "not set"); a required one
 * keeps the empty string so the server says it is required, on the field.
 */
export const applyInput = (
  data: JsonObject,
  field: FieldSpec,
  input: string | boolean
): { readonly data: JsonObject } | { readonly error: string } => {
  switch (field.kind) {
    case "checkbox":
      return { data: { ...data, [field.name]: input === true } }
    case "lines":
    case "tools": {
      const lines = String(input).split("\n").map((l) => l.trim()).filter((l) => l !== "")
      return { data: lines.length === 0 ? without(data, field.name) : { ...data, [field.name]: lines } }
    }
    case "number": {
      const text = String(input).trim()
      if (text === "") return { data: without(data, field.name) }
      const value = Number(text)
      if (!Number.isFinite(value)) return { error: `${field.label} must be a number` }
      return { data: { ...data, [field.name]: value } }
    }
    case "json":
    case "tool-filters": {
      const text = String(input).trim()
      if (text === "") return { data: without(data, field.name) }
      try {
        const value: unknown = JSON.parse(text)
        if (typeof value !== "object" || value === null || Array.isArray(value)) return { error: `${field.label} must be a JSON object` }
        return { data: { ...data, [field.name]: value } }
      } catch (error) {
        return { error: `${field.label} is not valid JSON: ${error instanceof Error ? error.message : String(error)}` }
      }
    }
    case "select": {
      const text = String(input)
      return { data: text === "" ? without(data, field.name) : { ...data, [field.name]: text } }
    }
    default: {
      const text = String(input)
      return { data: text === "" && field.required !== true ? without(data, field.name) : { ...data, [field.name]: text } }
    }
  }
}

// ------------------------------------------------------------------------------------------ rows

/** One row of a `rows` field as its inputs show it: a string per column. */
export type Row = Record<string, string>

const isObject = (u: unknown): u is JsonObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** A select column's value when the row has none (or one it does not offer): its first option. */
const columnValue = (column: FieldSpec, value: unknown): string => {
  if (column.options !== undefined) {
    return column.options.some((o) => o.value === value) ? String(value) : column.options[0]?.value ?? ""
  }
  return typeof value === "string" ? value : ""
}

export const rowsOf = (data: JsonObject, field: FieldSpec): Array<Row> => {
  const list = data[field.name]
  return (Array.isArray(list) ? list : []).filter(isObject).map((row) =>
    Object.fromEntries((field.columns ?? []).map((column) => [column.name, columnValue(column, row[column.name])]))
  )
}

/** A new, empty row: selects at their first option. */
export const newRow = (field: FieldSpec): Row =>
  Object.fromEntries((field.columns ?? []).map((column) => [column.name, columnValue(column, undefined)]))

/** `data` with the rows set; an emptied optional column is left out of its row, no rows remove the field. */
export const withRows = (data: JsonObject, field: FieldSpec, rows: ReadonlyArray<Row>): JsonObject =>
  rows.length === 0 ? without(data, field.name) : {
    ...data,
    [field.name]: rows.map((row) =>
      Object.fromEntries((field.columns ?? []).flatMap((column) => {
        const value = row[column.name] ?? ""
        return value === "" && column.required !== true ? [] : [[column.name, value]]
      }))
    )
  }
