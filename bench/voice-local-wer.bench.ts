/**
 * How well the offline recognizer (pocketsphinx) hears the offline voice (espeak-ng): word error
 * rate over a few call-like sentences, on wideband audio and over a µ-law phone line, with the phrase
 * grammar and with the open language model. Writes bench/voice-local-wer.md (quoted in docs/voice.md).
 * Run: node --import tsx bench/voice-local-wer.bench.ts
 */
import type { AudioFormat, AudioFrame } from "@agentline/core/audio/AudioFormat"
import * as LocalSpeechToText from "@agentline/voice-local/LocalSpeechToText"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { wordErrorRate, words } from "@agentline/voice-local/WordErrorRate"
import { NodeContext } from "@effect/platform-node"
import { Chunk, Effect, Layer, Stream } from "effect"
import * as Fs from "node:fs"

const SENTENCES = [
  "hello i would like to book an appointment",
  "yes please",
  "my name is john smith",
  "can you call me back tomorrow",
  "goodbye",
  "no thank you",
  "tuesday at three",
  "i am not interested"
]

const FORMATS: ReadonlyArray<readonly [string, AudioFormat]> = [
  ["16 kHz PCM", { encoding: "l16le", sampleRate: 16000 }],
  ["8 kHz µ-law (phone)", { encoding: "mulaw", sampleRate: 8000 }]
]

const program = Effect.gen(function*() {
  const tts = yield* LocalTextToSpeech.LocalTextToSpeech
  const stt = yield* LocalSpeechToText.LocalSpeechToText
  const rows: Array<string> = []
  for (const [label, format] of FORMATS) {
    for (const mode of ["grammar", "language model"] as const) {
      const pairs: Array<{ reference: string; hypothesis: string }> = []
      let exact = 0
      const started = Date.now()
      for (const reference of SENTENCES) {
        const speech = Chunk.toReadonlyArray(yield* Stream.runCollect(tts.synthesize(reference, format)))
        const silence = new Uint8Array(format.sampleRate * (format.encoding === "mulaw" ? 1 : 2)).fill(format.encoding === "mulaw" ? 0xff : 0)
        const audio: ReadonlyArray<AudioFrame> = [...speech, { format, data: silence }]
        const heard = yield* Stream.runCollect(
          stt.transcribe(Stream.fromIterable(audio), mode === "grammar" ? { phrases: SENTENCES } : {})
        )
        const hypothesis = Chunk.toReadonlyArray(heard).join(" ")
        if (words(hypothesis).join(" ") === words(reference).join(" ")) exact++
        pairs.push({ reference, hypothesis })
      }
      const seconds = (Date.now() - started) / 1000
      const wer = (wordErrorRate(pairs) * 100).toFixed(0)
      const worst = pairs.filter((p) => words(p.hypothesis).join(" ") !== p.reference).slice(0, 2)
        .map((p) => `"${p.reference}" → "${p.hypothesis}"`).join("; ")
      rows.push(`| ${label} | ${mode} | ${exact}/${SENTENCES.length} | ${wer} % | ${seconds.toFixed(1)} s | ${worst || "—"} |`)
    }
  }
  const report = [
    "# Offline recognition of the offline voice",
    "",
    `espeak-ng en-us at 150 words per minute → pocketsphinx (en-us), ${SENTENCES.length} sentences, ${new Date().toISOString().slice(0, 10)}; grammar = the ${SENTENCES.length} sentences as phrases.`,
    "",
    "| audio | mode | sentences exact | WER | time (all) | examples of misses |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
    ""
  ].join("\n")
  Fs.writeFileSync(new URL("./voice-local-wer.md", import.meta.url), report)
  console.log(report)
})

program.pipe(
  Effect.provide(Layer.mergeAll(LocalTextToSpeech.layer(), LocalSpeechToText.layer()).pipe(Layer.provide(NodeContext.layer))),
  Effect.runPromise
)
