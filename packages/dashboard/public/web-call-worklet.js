/**
 * The audio of a web call in the page (docs/web-calls.md), as an AudioWorklet processor:
 *
 * - capture: the microphone at the context's rate, averaged down to the wire's rate (16 kHz), posted to
 *   the page as 20 ms frames of 16-bit PCM (`{type: "capture", pcm: ArrayBuffer}`);
 * - playback: the agent's audio at the wire's rate (`{type: "audio", samples: Float32Array}` from the
 *   page), queued and played at the context's rate (linear interpolation); `{type: "clear"}` drops the
 *   queue at once (the caller talked over the agent);
 * - counters, posted every ~100 ms (`{type: "stats", played, audible, queued, clears}`): samples played
 *   from the queue, of which audible (above -40 dBFS), what is still queued; the page shows them and the
 *   browser tests read them.
 *
 * Plain JavaScript served as a file of the dashboard (`/web-call-worklet.js`): a worklet is a module
 * of its own, loaded by URL, and the page's CSP allows scripts of this origin only.
 */
class WebCallProcessor extends AudioWorkletProcessor {
  constructor(options) {
    super()
    this.wireRate = options.processorOptions.wireRate
    // Capture: input samples per wire sample, and the running average of the current wire sample.
    this.ratio = sampleRate / this.wireRate
    this.sum = 0
    this.count = 0
    this.due = this.ratio
    this.frame = new Int16Array(this.wireRate / 50)
    this.filled = 0
    // Playback: chunks at the wire's rate and where in the first one we are.
    this.queue = []
    this.position = 0
    this.step = this.wireRate / sampleRate
    this.played = 0
    this.audible = 0
    this.clears = 0
    this.sinceStats = 0
    this.port.onmessage = (event) => {
      const message = event.data
      if (message.type === "audio") this.queue.push(message.samples)
      else if (message.type === "clear") {
        this.queue = []
        this.position = 0
        this.clears++
      }
    }
  }

  capture(input) {
    for (let i = 0; i < input.length; i++) {
      this.sum += input[i]
      this.count++
      if (this.count >= this.due) {
        const value = Math.max(-1, Math.min(1, this.sum / this.count))
        this.frame[this.filled++] = value < 0 ? value * 0x8000 : value * 0x7fff
        this.due += this.ratio - this.count
        this.sum = 0
        this.count = 0
        if (this.filled === this.frame.length) {
          const pcm = this.frame.buffer
          this.port.postMessage({ type: "capture", pcm }, [pcm])
          this.frame = new Int16Array(this.wireRate / 50)
          this.filled = 0
        }
      }
    }
  }

  play(output) {
    for (let i = 0; i < output.length; i++) {
      const head = this.queue[0]
      if (head === undefined) {
        output[i] = 0
        continue
      }
      const index = Math.floor(this.position)
      const fraction = this.position - index
      const next = index + 1 < head.length ? head[index + 1] : (this.queue[1]?.[0] ?? head[index])
      const value = head[index] * (1 - fraction) + next * fraction
      output[i] = value
      this.played++
      if (Math.abs(value) > 0.01) this.audible++
      this.position += this.step
      if (this.position >= head.length) {
        this.position -= head.length
        this.queue.shift()
      }
    }
  }

  process(inputs, outputs) {
    const input = inputs[0]?.[0]
    if (input !== undefined) this.capture(input)
    const output = outputs[0]?.[0]
    if (output !== undefined) {
      this.play(output)
      for (let channel = 1; channel < outputs[0].length; channel++) outputs[0][channel].set(output)
      this.sinceStats += output.length
      if (this.sinceStats >= sampleRate / 10) {
        this.sinceStats = 0
        const queued = this.queue.reduce((n, chunk) => n + chunk.length, 0) - Math.floor(this.position)
        this.port.postMessage({ type: "stats", played: this.played, audible: this.audible, queued, clears: this.clears })
      }
    }
    return true
  }
}

registerProcessor("web-call", WebCallProcessor)
