/**
 * The node-type catalog: its wire shapes (the reference's `NodeSpec`, `PropertySpec`, `NodeExample`,
 * `GraphConstraints`, served by `GET /api/v1/node-types`) and the few builders every node type is
 * declared with (`NodeTypes.ts`).
 *
 * A field is declared once, as a `Property`: what the catalog says of it (`spec`) and the schema the
 * server checks it with (`field`), made from the same arguments. A node type's data schema is the
 * struct of its properties' fields, its `NodeSpec` the list of their specs, so the catalog, the
 * server's definition validation and the dashboard's forms (which read the specs) cannot disagree.
 *
 * Optional fields accept `null` as "not set", as the reference's JSON does (booleans excepted: the
 * reference refuses a null there too). Unknown keys are kept (editors store their own state in `data`).
 */
import { Schema } from "effect"

/** The catalog's contract version (the reference's); SDKs pin to it. */
export const SPEC_VERSION = "1.0.0"

// ------------------------------------------------------------------------------------------ wire

export const PropertyType = Schema.Literal(
  "string",
  "number",
  "boolean",
  "options",
  "multi_options",
  "fixed_collection",
  "json",
  "tool_refs",
  "document_refs",
  "recording_ref",
  "credential_ref",
  "mention_textarea",
  "url"
).annotations({ identifier: "PropertyType", description: "What kind of value a property holds; editors render each kind their own way." })
export type PropertyType = typeof PropertyType.Type

export const NodeCategory = Schema.Literal("call_node", "global_node", "trigger", "integration").annotations({
  identifier: "NodeCategory",
  description: "The group an editor lists the node type under."
})
export type NodeCategory = typeof NodeCategory.Type

export const PropertyOption = Schema.Struct({
  value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean),
  label: Schema.String,
  description: Schema.NullOr(Schema.String)
}).annotations({ identifier: "PropertyOption", description: "One allowed value of an `options` property." })
export type PropertyOption = typeof PropertyOption.Type

const Conditions = Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.Unknown) }))

export const DisplayOptions = Schema.Struct({ show: Conditions, hide: Conditions }).annotations({
  identifier: "DisplayOptions",
  description: "When an editor shows the property: `show` — only while every named field (or its default) has one of " +
    "the listed values; `hide` — not while any named field has one of its listed values. Hidden fields keep their values."
})
export type DisplayOptions = typeof DisplayOptions.Type

export const PropertyRendererOptions = Schema.Struct({
  layout: Schema.NullOr(Schema.Struct({ column_span: Schema.NullOr(Schema.Int) })),
  number_input: Schema.NullOr(Schema.Struct({
    /** True: any number within the bounds; false: whole numbers only (the server refuses fractions). */
    fractional: Schema.Boolean
  }))
}).annotations({ identifier: "PropertyRendererOptions", description: "Hints for editors; `number_input.fractional` false means whole numbers." })
export type PropertyRendererOptions = typeof PropertyRendererOptions.Type

export interface PropertySpec {
  readonly name: string
  readonly type: PropertyType
  readonly display_name: string
  /** For people: shown under the field. */
  readonly description: string
  /** For programs and language models: how to fill the field (which list gives its ids, its shape). */
  readonly llm_hint: string | null
  /** The value the server acts on when the field is absent or null. */
  readonly default: unknown
  readonly required: boolean
  readonly placeholder: string | null
  readonly display_options: DisplayOptions | null
  readonly options: ReadonlyArray<PropertyOption> | null
  /** The columns of each row of a `fixed_collection`. */
  readonly properties: ReadonlyArray<PropertySpec> | null
  readonly min_value: number | null
  readonly max_value: number | null
  readonly min_length: number | null
  readonly max_length: number | null
  readonly pattern: string | null
  /** `textarea` (several lines) or `password` (a secret) for string-like properties. */
  readonly editor: string | null
  readonly renderer_options: PropertyRendererOptions | null
}

export const PropertySpec: Schema.Schema<PropertySpec> = Schema.Struct({
  name: Schema.String,
  type: PropertyType,
  display_name: Schema.String,
  description: Schema.String,
  llm_hint: Schema.NullOr(Schema.String),
  default: Schema.Unknown,
  required: Schema.Boolean,
  placeholder: Schema.NullOr(Schema.String),
  display_options: Schema.NullOr(DisplayOptions),
  options: Schema.NullOr(Schema.Array(PropertyOption)),
  properties: Schema.NullOr(Schema.Array(Schema.suspend((): Schema.Schema<PropertySpec> => PropertySpec))),
  min_value: Schema.NullOr(Schema.Number),
  max_value: Schema.NullOr(Schema.Number),
  min_length: Schema.NullOr(Schema.Int),
  max_length: Schema.NullOr(Schema.Int),
  pattern: Schema.NullOr(Schema.String),
  editor: Schema.NullOr(Schema.String),
  renderer_options: Schema.NullOr(PropertyRendererOptions)
}).annotations({ identifier: "PropertySpec", description: "One field of a node's `data`: its type, whether it is required, its default and allowed values." })

export const NodeExample = Schema.Struct({
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}).annotations({ identifier: "NodeExample", description: "A node's `data` the server accepts, to start from." })
export type NodeExample = typeof NodeExample.Type

export const GraphConstraints = Schema.Struct({
  min_incoming: Schema.NullOr(Schema.Int),
  max_incoming: Schema.NullOr(Schema.Int),
  min_outgoing: Schema.NullOr(Schema.Int),
  max_outgoing: Schema.NullOr(Schema.Int),
  min_instances: Schema.NullOr(Schema.Int),
  max_instances: Schema.NullOr(Schema.Int)
}).annotations({
  identifier: "GraphConstraints",
  description: "Edges into and out of each node of the type, and nodes of the type in one definition, that a save accepts (null: no bound)."
})
export type GraphConstraints = typeof GraphConstraints.Type

export const NodeSpec = Schema.Struct({
  name: Schema.String,
  display_name: Schema.String,
  description: Schema.String,
  llm_hint: Schema.NullOr(Schema.String),
  docs_url: Schema.NullOr(Schema.String),
  category: NodeCategory,
  icon: Schema.String,
  version: Schema.String,
  properties: Schema.Array(PropertySpec),
  examples: Schema.Array(NodeExample),
  graph_constraints: Schema.NullOr(GraphConstraints)
}).annotations({ identifier: "NodeSpec", description: "A node type: the fields of its `data`, examples, and where it may sit in the graph." })
export type NodeSpec = typeof NodeSpec.Type

export const NodeTypesResponse = Schema.Struct({
  spec_version: Schema.String,
  node_types: Schema.Array(NodeSpec)
}).annotations({ identifier: "NodeTypesResponse" })

// ------------------------------------------------------------------------------------------ leaf schemas

/** Leaf schemas carry their own wording so every issue reads "<field> <what is wrong>". */
export const says = (message: string) => ({ message: () => ({ message, override: true }) })
/** For containers: used when the value is not a container at all; problems inside are reported one by one. */
export const container = { message: () => "must be an object" }
const list = { message: () => "must be a list" }

/** Keeps unknown keys on decode and on encode alike. */
export const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })
const nullable = <S extends Schema.Schema.Any>(schema: S) => opt(Schema.NullOr(schema))

export const NonEmptyString = Schema.String.pipe(Schema.filter((s) => s.trim() !== "")).annotations(
  says("must be a non-empty string")
)
const Text = Schema.String.annotations(says("must be a string"))
const Flag = Schema.Boolean.annotations(says("must be true or false"))
/** A list of strings. */
export const Strings = Schema.Array(Text).annotations(list)
const JsonObject = Extra.annotations(says("must be an object"))
const quoted = (values: ReadonlyArray<string>) => values.map((v) => `"${v}"`).join(", ")

// ------------------------------------------------------------------------------------------ declarations

/** What every property says of itself. */
export interface Described {
  readonly display_name: string
  readonly description: string
  readonly llm_hint?: string
  readonly placeholder?: string
  readonly display_options?: DisplayConditions
}

/** When an editor shows a property (see `DisplayOptions`). */
export interface DisplayConditions {
  readonly show?: Record<string, ReadonlyArray<unknown>>
  readonly hide?: Record<string, ReadonlyArray<unknown>>
}

/** One field of a node's (or an edge's) data, declared once: its catalog entry and its schema. */
export interface Property<F extends Schema.Struct.Field = Schema.Struct.Field> {
  readonly spec: Omit<PropertySpec, "name">
  readonly field: F
}

export type Properties = { readonly [name: string]: Property }

type SpecDetails = Partial<Omit<PropertySpec, "name" | "type" | "display_name" | "description" | "llm_hint" | "placeholder" | "display_options">>

const specOf = (type: PropertyType, d: Described, details: SpecDetails = {}): Omit<PropertySpec, "name"> => ({
  type,
  display_name: d.display_name,
  description: d.description,
  llm_hint: d.llm_hint ?? null,
  default: null,
  required: false,
  placeholder: d.placeholder ?? null,
  display_options: d.display_options === undefined ? null : { show: d.display_options.show ?? null, hide: d.display_options.hide ?? null },
  options: null,
  properties: null,
  min_value: null,
  max_value: null,
  min_length: null,
  max_length: null,
  pattern: null,
  editor: null,
  renderer_options: null,
  ...details
})

/** The catalog entries of `properties`, named by their keys, in declaration order. */
export const specsOf = (properties: Properties): ReadonlyArray<PropertySpec> =>
  Object.entries(properties).map(([name, property]) => ({ name, ...property.spec }))

/** The struct fields of `properties`, for `Schema.Struct`. */
export const fieldsOf = <P extends Properties>(properties: P): { readonly [K in keyof P]: P[K]["field"] } =>
  Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, property.field])) as {
    readonly [K in keyof P]: P[K]["field"]
  }

/** The data schema of `properties`: each field checked, unknown keys kept. */
export const dataOf = <P extends Properties>(properties: P) => Schema.Struct(fieldsOf(properties), Extra).annotations(container)

type TextType = "string" | "mention_textarea" | "url" | "recording_ref" | "credential_ref"
interface TextOptions extends Described {
  readonly type?: TextType
  readonly editor?: "textarea" | "password"
}

/** A string that must be present and not blank. */
export const requiredText = (d: TextOptions): Property<typeof NonEmptyString> => ({
  spec: specOf(d.type ?? "string", d, { required: true, min_length: 1, editor: d.editor ?? null }),
  field: NonEmptyString
})

/** A string that must be present; empty is allowed. */
export const requiredString = (d: TextOptions): Property<typeof Text> => ({
  spec: specOf(d.type ?? "string", d, { required: true, editor: d.editor ?? null }),
  field: Text
})

/** An optional string; with `pattern`, the whole value must match it (`message` says how it is wrong). */
export const text = (
  d: TextOptions & { readonly pattern?: RegExp; readonly max_length?: number; readonly message?: string }
): Property<Schema.optionalWith<Schema.NullOr<Schema.Schema<string>>, { exact: true }>> => {
  const pattern = d.pattern
  const schema: Schema.Schema<string> = pattern === undefined
    ? Text
    : Schema.String.pipe(Schema.filter((s) => pattern.test(s) && (d.max_length === undefined || s.length <= d.max_length))).annotations(
      says(d.message ?? `must match ${pattern.source}`)
    )
  return {
    spec: specOf(d.type ?? "string", d, { editor: d.editor ?? null, pattern: pattern?.source ?? null, max_length: d.max_length ?? null }),
    field: nullable(schema)
  }
}

/** An optional boolean; `default` is what the server does when it is absent. */
export const flag = (d: Described & { readonly default?: boolean }) => ({
  spec: specOf("boolean", d, { default: d.default ?? null }),
  field: opt(Flag)
})

const optionsOf = (labels: Readonly<Record<string, string>>): ReadonlyArray<PropertyOption> =>
  Object.entries(labels).map(([value, label]) => ({ value, label, description: null }))

/** An optional choice among `values` (null: not set); `labels` names each for people. */
export const choice = <const L extends readonly [string, ...Array<string>]>(
  values: L,
  d: Described & { readonly labels: { readonly [V in L[number]]: string }; readonly default?: L[number] }
) => ({
  spec: specOf("options", d, { default: d.default ?? null, options: optionsOf(d.labels) }),
  field: opt(Schema.NullOr(Schema.Literal(...values)).annotations(says(`must be one of ${quoted(values)}`)))
})

/** A choice among `values` that must be present. */
export const requiredChoice = <const L extends readonly [string, ...Array<string>]>(
  values: L,
  d: Described & { readonly labels: { readonly [V in L[number]]: string } }
) => ({
  spec: specOf("options", d, { required: true, options: optionsOf(d.labels) }),
  field: Schema.Literal(...values).annotations(says(`must be one of ${quoted(values)}`))
})

/**
 * An optional number from `min` (to `max` when given); whole numbers only unless `fractional`.
 * `default` is what the server does when it is absent.
 */
export const number = (
  d: Described & { readonly min: number; readonly max?: number; readonly fractional: boolean; readonly default?: number }
) => {
  const kind = d.fractional ? "a number" : "a whole number"
  const base = d.fractional ? Schema.Number : Schema.Int
  const schema = (d.max === undefined ? base.pipe(Schema.greaterThanOrEqualTo(d.min)) : base.pipe(Schema.between(d.min, d.max))).annotations(
    says(d.max === undefined ? `must be ${kind} of at least ${d.min}` : `must be ${kind} from ${d.min} to ${d.max}`)
  )
  return {
    spec: specOf("number", d, {
      default: d.default ?? null,
      min_value: d.min,
      max_value: d.max ?? null,
      renderer_options: { layout: null, number_input: { fractional: d.fractional } }
    }),
    field: nullable(schema)
  }
}

/** A list of ids of other things (tools, documents). */
export const refs = (type: "tool_refs" | "document_refs", d: Described) => ({
  spec: specOf(type, d),
  field: nullable(Strings)
})

/** Any JSON object. */
export const json = (d: Described) => ({ spec: specOf("json", d), field: nullable(JsonObject) })

/** A JSON object of the shape `value` checks (the catalog says `json`; `llm_hint` should give the shape). */
export const jsonOf = <S extends Schema.Schema.Any>(d: Described, value: S) => ({ spec: specOf("json", d), field: nullable(value) })

/** A list of rows, each with the columns `columns` declares. */
export const rows = <P extends Properties>(d: Described, columns: P) => ({
  spec: specOf("fixed_collection", d, { properties: specsOf(columns) }),
  field: nullable(Schema.Array(dataOf(columns)).annotations(list)),
  row: dataOf(columns)
})

// ------------------------------------------------------------------------------------------ node types

/**
 * The graph rules of a node type, enforced on every save (`DefinitionValidation.ts`) and by the
 * editor while drawing. `why` completes the messages ("...: calls only begin there").
 */
export interface GraphRules {
  readonly min_instances?: number
  readonly max_instances?: number
  readonly min_incoming?: number
  readonly max_incoming?: number
  readonly min_outgoing?: number
  readonly max_outgoing?: number
  readonly why?: { readonly instances?: string; readonly incoming?: string; readonly outgoing?: string }
}

export interface NodeTypeDeclaration<Name extends string, P extends Properties> {
  readonly name: Name
  readonly display_name: string
  readonly description: string
  readonly llm_hint: string
  readonly category: NodeCategory
  /** A lucide icon name, as the reference's editor uses. */
  readonly icon: string
  readonly properties: P
  readonly examples: ReadonlyArray<{ readonly name: string; readonly description?: string; readonly data: Record<string, unknown> }>
  readonly graph: GraphRules
}

const bound = (n: number | undefined) => n ?? null

/** A node type: its declaration, its data schema and its catalog entry. */
export const nodeType = <const Name extends string, P extends Properties>(declaration: NodeTypeDeclaration<Name, P>) => ({
  ...declaration,
  data: dataOf(declaration.properties),
  spec: {
    name: declaration.name,
    display_name: declaration.display_name,
    description: declaration.description,
    llm_hint: declaration.llm_hint,
    docs_url: null,
    category: declaration.category,
    icon: declaration.icon,
    version: "1.0.0",
    properties: specsOf(declaration.properties),
    examples: declaration.examples.map((e) => ({ name: e.name, description: e.description ?? null, data: e.data })),
    graph_constraints: {
      min_incoming: bound(declaration.graph.min_incoming),
      max_incoming: bound(declaration.graph.max_incoming),
      min_outgoing: bound(declaration.graph.min_outgoing),
      max_outgoing: bound(declaration.graph.max_outgoing),
      min_instances: bound(declaration.graph.min_instances),
      max_instances: bound(declaration.graph.max_instances)
    }
  } satisfies NodeSpec
})
