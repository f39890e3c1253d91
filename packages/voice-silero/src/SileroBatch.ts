/**
 * Silero windows of many calls scored in one inference. The v5 network takes a batch of windows with
 * a recurrent state per row (`input` [n, context + window], `state` [2, n, 128]), and one run of n
 * windows costs far less than n runs of one (measured on 2 cores: 0.26 ms for one window alone,
 * about 0.04 ms a window in a batch of 32), so a process with a hundred calls spends a fraction of
 * the CPU it would window by window.
 *
 * Windows submitted in the same turn of the event loop are gathered (`setImmediate`) and run together;
 * while a batch is running, new windows queue and go in the next one as soon as it ends. One batch
 * runs at a time (the inference itself runs on onnxruntime's thread, off the event loop), so the
 * detector never takes more than one core from the calls, and a window waits at most for the batch
 * in flight. Each stream keeps its own state (`WindowStream`): the batch copies it in and the new
 * state back out, so a row of a batch is exactly that stream's window as the single path scores it.
 */
import ort from "onnxruntime-node"

/** The recurrent state of one stream: [2, 1, 128]. */
export const STATE_SIZE = 2 * 128

/** The window and context lengths the model takes at a rate it supports. */
export const windowOf = (modelRate: 8000 | 16000) =>
  modelRate === 8000 ? { window: 256, context: 32 } : { window: 512, context: 64 }

/** One stream's buffers, reused for every window it scores (no allocation per window). */
export interface WindowStream {
  /** The context (the last samples of the window before) then the window. */
  readonly input: Float32Array
  /** The stream's recurrent state, updated in place by each scored window. */
  readonly state: Float32Array
}

export const makeStream = (modelRate: 8000 | 16000): WindowStream => {
  const { context, window } = windowOf(modelRate)
  return { input: new Float32Array(context + window), state: new Float32Array(STATE_SIZE) }
}

interface Request {
  readonly stream: WindowStream
  readonly done: (result: { readonly _tag: "Right"; readonly probability: number } | { readonly _tag: "Left"; readonly cause: unknown }) => void
}

export interface BatchStats {
  /** Inferences run. */
  readonly runs: number
  /** Windows scored (the sum of the batches' sizes). */
  readonly windows: number
  /** The largest batch run. */
  readonly largest: number
}

export interface Batcher {
  /** Scores the window in `stream.input` and updates `stream.state`; the stream's buffers must not change until it resolves. */
  readonly score: (stream: WindowStream) => Promise<number>
  readonly stats: () => BatchStats
}

/** A batcher for the windows of every stream at `modelRate`, on one session. */
export const makeBatcher = (session: ort.InferenceSession, modelRate: 8000 | 16000, maxBatch: number): Batcher => {
  const { context, window } = windowOf(modelRate)
  const width = context + window
  const sr = new ort.Tensor("int64", BigInt64Array.from([BigInt(modelRate)]), [])
  let queue: Array<Request> = []
  let running = false
  let scheduled = false
  let runs = 0
  let windows = 0
  let largest = 0

  const run = async (batch: ReadonlyArray<Request>) => {
    const n = batch.length
    const input = new Float32Array(n * width)
    const state = new Float32Array(2 * n * 128)
    for (let b = 0; b < n; b++) {
      const stream = batch[b]!.stream
      input.set(stream.input, b * width)
      state.set(stream.state.subarray(0, 128), b * 128)
      state.set(stream.state.subarray(128, 256), (n + b) * 128)
    }
    const result = await session.run({
      input: new ort.Tensor("float32", input, [n, width]),
      state: new ort.Tensor("float32", state, [2, n, 128]),
      sr
    })
    const output = result["output"]!.data as Float32Array
    const stateN = result["stateN"]!.data as Float32Array
    runs++
    windows += n
    largest = Math.max(largest, n)
    for (let b = 0; b < n; b++) {
      const stream = batch[b]!.stream
      stream.state.set(stateN.subarray(b * 128, b * 128 + 128), 0)
      stream.state.set(stateN.subarray((n + b) * 128, (n + b) * 128 + 128), 128)
      batch[b]!.done({ _tag: "Right", probability: output[b]! })
    }
  }

  const drain = () => {
    if (running || queue.length === 0) return
    running = true
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch)
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch)
    run(batch).catch((cause: unknown) => {
      for (const request of batch) request.done({ _tag: "Left", cause })
    }).finally(() => {
      running = false
      drain()
    })
  }

  return {
    score: (stream) =>
      new Promise<number>((resolve, reject) => {
        queue.push({ stream, done: (result) => (result._tag === "Right" ? resolve(result.probability) : reject(result.cause)) })
        if (!running && !scheduled) {
          scheduled = true
          setImmediate(() => {
            scheduled = false
            drain()
          })
        }
      }),
    stats: () => ({ runs, windows, largest })
  }
}
