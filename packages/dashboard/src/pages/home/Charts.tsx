/**
 * Small bar charts in plain SVG (no chart library: a few rectangles need none), each drawn from the
 * same figures as the table beside it, which is what screen readers and the tests read.
 */
import { axisMax } from "./overview.js"

export interface Series {
  readonly key: string
  readonly label: string
  readonly color: string
}

const WIDTH = 640
const HEIGHT = 200
const LEFT = 44
const BOTTOM = 24
const TOP = 8

/** Stacked bars, one per day (`values[i][series.key]`); `format` labels the axis. */
export const BarChart = ({ days, format = String, label, series, values }: {
  readonly label: string
  readonly days: ReadonlyArray<string>
  readonly series: ReadonlyArray<Series>
  readonly values: ReadonlyArray<Readonly<Record<string, number>>>
  readonly format?: (value: number) => string
}) => {
  const totals = values.map((v) => series.reduce((n, s) => n + (v[s.key] ?? 0), 0))
  const top = axisMax(Math.max(0, ...totals))
  const plotHeight = HEIGHT - BOTTOM - TOP
  const slot = (WIDTH - LEFT) / Math.max(1, days.length)
  const barWidth = Math.max(2, slot * 0.7)
  const y = (value: number) => TOP + plotHeight - (value / top) * plotHeight
  const labelEvery = Math.ceil(days.length / 10)
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="xMidYMid meet">
        {[0, top / 2, top].map((tick) => (
          <g key={tick}>
            <line x1={LEFT} x2={WIDTH} y1={y(tick)} y2={y(tick)} className="chart-grid" />
            <text x={LEFT - 4} y={y(tick) + 4} textAnchor="end" className="chart-axis">{format(tick)}</text>
          </g>
        ))}
        {days.map((day, i) => {
          let base = 0
          const x = LEFT + i * slot + (slot - barWidth) / 2
          return (
            <g key={day}>
              {series.map((s) => {
                const value = values[i]?.[s.key] ?? 0
                const rect = value > 0
                  ? <rect key={s.key} x={x} width={barWidth} y={y(base + value)} height={y(base) - y(base + value)} fill={s.color}><title>{`${day} ${s.label}: ${format(value)}`}</title></rect>
                  : null
                base += value
                return rect
              })}
              {i % labelEvery === 0 && <text x={x + barWidth / 2} y={HEIGHT - 6} textAnchor="middle" className="chart-axis">{day.slice(5)}</text>}
            </g>
          )
        })}
      </svg>
      {series.length > 1 && (
        <figcaption className="chart-legend">
          {series.map((s) => <span key={s.key}><span className="swatch" style={{ background: s.color }} aria-hidden="true" /> {s.label}</span>)}
        </figcaption>
      )}
    </figure>
  )
}
