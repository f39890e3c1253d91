/**
 * What the voice runtime reports of each turn, declared once for the pipeline to use: the span of a
 * turn and of a tool call, their attribute names, and the metric instruments. The server exports them
 * (Prometheus at `/metrics`, OTLP traces) with the rest of `@agentline/core/Telemetry`; docs/production.md
 * lists them. A turn's span is a child of the call's media span (`agentline.call.media`), so a call's
 * trace shows its turns.
 *
 * Latencies of a turn, each measured from the end of the caller's speech (the VAD's end of speech,
 * after endpointing):
 * - `end_of_speech`: from the last voiced frame to the moment the turn is taken (endpointing delay);
 * - `recognition`: to the final transcript of the turn;
 * - `first_token`: to the language model's first token;
 * - `first_audio`: to the first frame of the reply sent to the caller (voice to voice, less the
 *   carrier's own delays).
 */
import { Clock, Effect, Metric, MetricBoundaries } from "effect"

export const SpanNames = {
  /** One caller turn and the agent's reply. */
  turn: "agentline.voice.turn",
  /** One tool call of the language model (a child of the turn). */
  toolCall: "agentline.voice.tool_call"
} as const

export type TurnStage = "end_of_speech" | "recognition" | "first_token" | "first_audio"

/** The turn span's attributes: each stage's latency in milliseconds, the node, whether the caller barged in. */
export const TurnAttributes = {
  endOfSpeechMs: "agentline.turn.end_of_speech_ms",
  recognitionMs: "agentline.turn.recognition_ms",
  firstTokenMs: "agentline.turn.first_token_ms",
  firstAudioMs: "agentline.turn.first_audio_ms",
  node: "agentline.turn.node",
  interrupted: "agentline.turn.interrupted"
} as const

/** The tool call span's attributes. */
export const ToolCallAttributes = {
  name: "agentline.tool.name",
  outcome: "agentline.tool.outcome"
} as const

/** Turn latencies per stage (`stage` label), seconds: 10 ms to 10 s. */
export const turnLatency = Metric.histogram(
  "agentline_turn_latency_seconds",
  MetricBoundaries.fromIterable([0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10]),
  "Turn latency from the end of the caller's speech, by stage (end_of_speech, recognition, first_token, first_audio), seconds"
)

/** Outgoing audio frames sent later than their 20 ms slot (the pacer fell behind). */
export const framesLate = Metric.counter("agentline_frames_late_total", {
  description: "Outgoing audio frames sent later than their slot",
  incremental: true
})

/** Outgoing audio frames sent, so that `frames_late` can be read as a share. */
export const framesSent = Metric.counter("agentline_frames_sent_total", {
  description: "Outgoing audio frames sent",
  incremental: true
})

/** Records one stage's latency of a turn (milliseconds) in the histogram and on the current span. */
export const recordStage = (stage: TurnStage, millis: number) =>
  Effect.zipRight(
    Metric.update(Metric.tagged(turnLatency, "stage", stage), millis / 1000),
    Effect.annotateCurrentSpan(
      {
        end_of_speech: TurnAttributes.endOfSpeechMs,
        recognition: TurnAttributes.recognitionMs,
        first_token: TurnAttributes.firstTokenMs,
        first_audio: TurnAttributes.firstAudioMs
      }[stage],
      millis
    )
  )

/** `self` as one turn's span; the pipeline calls `recordStage` inside it as each stage is reached. */
export const turnSpan = (attributes: { readonly node?: string } = {}) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.withSpan(self, SpanNames.turn, {
    attributes: attributes.node !== undefined ? { [TurnAttributes.node]: attributes.node } : {}
  })

/** Milliseconds since `startMillis` on Effect's Clock (TestClock in tests). */
export const since = (startMillis: number) => Effect.map(Clock.currentTimeMillis, (now) => now - startMillis)
