/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for the tests: every line must
 * follow its grammar (`# HELP name text`, `# TYPE name counter|gauge|histogram|summary|untyped`, other
 * comments, `name{label="value",...} value [timestamp]` with the format's escapes), every sample must
 * belong to the family declared before it (histograms: `_bucket`, `_sum`, `_count`), and each histogram
 * series must be whole (cumulative buckets ending in `+Inf`, whose count is `_count`). The npm parser
 * tried first (parse-prometheus-text-format) dropped the labels of histograms with several series.
 */

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped"
  readonly help: string
  readonly samples: ReadonlyArray<Sample>
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

const value = (text: string, line: string): number => {
  if (text === "+Inf") return Infinity
  if (text === "-Inf") return -Infinity
  if (text === "NaN") return NaN
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`not a number: ${text} in: ${line}`)
  return Number(text)
}

/** `name{a="x",b="y"} 1 [ts]` → sample. */
const sample = (line: string): Sample => {
  let i = 0
  while (i < line.length && /[a-zA-Z0-9_:]/.test(line[i]!)) i++
  const name = line.slice(0, i)
  if (!NAME.test(name)) throw new Error(`bad metric name in: ${line}`)
  const labels: Record<string, string> = {}
  if (line[i] === "{") {
    i++
    while (line[i] !== "}") {
      let j = i
      while (j < line.length && /[a-zA-Z0-9_]/.test(line[j]!)) j++
      const label = line.slice(i, j)
      if (!LABEL_NAME.test(label) || line[j] !== "=" || line[j + 1] !== "\"") throw new Error(`bad label in: ${line}`)
      j += 2
      let text = ""
      while (line[j] !== "\"") {
        if (j >= line.length) throw new Error(`unterminated label value in: ${line}`)
        if (line[j] === "\\") {
          const next = line[j + 1]
          if (next === "n") text += "\n"
          else if (next === "\\" || next === "\"") text += next
          else throw new Error(`bad escape in: ${line}`)
          j += 2
        } else text += line[j++]
      }
      if (label in labels) throw new Error(`label ${label} twice in: ${line}`)
      labels[label] = text
      i = j + 1
      if (line[i] === ",") i++
      else if (line[i] !== "}") throw new Error(`expected , or } in: ${line}`)
    }
    i++
  }
  const rest = line.slice(i).trim().split(/\s+/)
  if (line[i] !== " " || rest.length < 1 || rest.length > 2) throw new Error(`bad sample line: ${line}`)
  if (rest.length === 2 && !/^-?\d+$/.test(rest[1]!)) throw new Error(`bad timestamp in: ${line}`)
  return { name, labels, value: value(rest[0]!, line) }
}

const SUFFIXES: Record<Family["type"], ReadonlyArray<string>> = {
  counter: [""],
  gauge: [""],
  untyped: [""],
  histogram: ["_bucket", "_sum", "_count"],
  summary: ["", "_sum", "_count"]
}

/** The families of an exposition, by name; throws on the first line that breaks the format. */
export const parse = (text: string): Map<string, Family> => {
  const families = new Map<string, { name: string; type: Family["type"]; help: string; samples: Array<Sample> }>()
  const helps = new Map<string, string>()
  let current: { name: string; type: Family["type"]; help: string; samples: Array<Sample> } | undefined
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    if (line.startsWith("#")) {
      const [, keyword, name, ...rest] = line.split(" ")
      if (keyword === "HELP") {
        if (name === undefined || !NAME.test(name)) throw new Error(`bad HELP: ${line}`)
        helps.set(name, rest.join(" "))
      } else if (keyword === "TYPE") {
        const type = rest[0] as Family["type"]
        if (name === undefined || !NAME.test(name) || !(type in SUFFIXES) || rest.length !== 1) throw new Error(`bad TYPE: ${line}`)
        if (families.has(name)) throw new Error(`family ${name} declared twice`)
        current = { name, type, help: helps.get(name) ?? "", samples: [] }
        families.set(name, current)
      }
      continue
    }
    const s = sample(line)
    if (current === undefined || !SUFFIXES[current.type].some((suffix) => s.name === current!.name + suffix)) {
      throw new Error(`sample ${s.name} outside its family (after ${current?.name ?? "nothing"})`)
    }
    current.samples.push(s)
  }
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family)
  return families
}

const seriesKey = (labels: Readonly<Record<string, string>>) =>
  JSON.stringify(Object.entries(labels).filter(([k]) => k !== "le").sort(([a], [b]) => a.localeCompare(b)))

const checkHistogram = (family: Family) => {
  const series = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>()
  for (const s of family.samples) {
    const key = seriesKey(s.labels)
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (s.name.endsWith("_bucket")) {
      if (s.labels.le === undefined) throw new Error(`${family.name}: a bucket without le`)
      entry.buckets.push([value(s.labels.le, s.labels.le), s.value])
    } else if (s.name.endsWith("_count")) entry.count = s.value
    else entry.sum = s.value
  }
  for (const [key, entry] of series) {
    const buckets = entry.buckets.sort(([a], [b]) => a - b)
    if (buckets.at(-1)?.[0] !== Infinity) throw new Error(`${family.name}${key}: no +Inf bucket`)
    buckets.forEach(([, count], i) => {
      if (i > 0 && count < buckets[i - 1]![1]) throw new Error(`${family.name}${key}: buckets not cumulative`)
    })
    if (entry.count !== buckets.at(-1)![1] || entry.sum === undefined) throw new Error(`${family.name}${key}: _count or _sum missing or wrong`)
  }
}

/** A family's total over the samples whose labels pass `where`: values (counter, gauge) or `_count` (histogram). */
export const total = (families: Map<string, Family>, name: string, where: (labels: Readonly<Record<string, string>>) => boolean = () => true) => {
  const family = families.get(name)
  if (family === undefined) return 0
  const counted = family.type === "histogram" ? family.samples.filter((s) => s.name === `${name}_count`) : family.samples
  return counted.filter((s) => where(s.labels)).reduce((sum, s) => sum + s.value, 0)
}
