/**
 * What a provider's media fake does with the audio the server sends, for adapter authors writing a
 * faithful fake: the audio plays in real time (scaled), one frame's worth per tick; a mark queued
 * behind audio is reached once that audio has played (marks at the head of the queue are reached at
 * once); a clear drops everything not yet played. Every carrier's stream works this way; how a mark
 * is reported and what a clear says about the marks it dropped is the provider's own, so the fake
 * keeps that part (`reached`, the marks `clear` returns).
 */

export interface FakePlayout<Marker> {
  /** Audio from the server: kept as received, and queued to play. */
  readonly audio: (data: Uint8Array) => void
  /** A mark from the server, queued behind the audio sent before it. */
  readonly mark: (marker: Marker) => void
  /** Drops what has not played yet; the marks dropped with it, in order. */
  readonly clear: () => ReadonlyArray<Marker>
  /** Everything the server sent as audio, played or not. */
  readonly received: () => Uint8Array
  /** What the listener heard: `received` less what a clear dropped. */
  readonly played: () => Uint8Array
  readonly clears: () => number
  readonly isEmpty: () => boolean
  /** Stops the clock (the socket closed). */
  readonly stop: () => void
}

type Queued<Marker> = { readonly _tag: "Audio"; data: Uint8Array } | { readonly _tag: "Mark"; readonly marker: Marker }

const concat = (chunks: ReadonlyArray<Uint8Array>) => new Uint8Array(Buffer.concat(chunks.map((c) => Buffer.from(c))))

export const make = <Marker>(options: {
  /** Bytes of one frame (20 ms of the stream's encoding and rate). */
  readonly frameBytes: number
  /** Real milliseconds per frame (tests scale time down). */
  readonly frameMillis: number
  /** A mark was reached: the provider reports it its own way. */
  readonly reached: (marker: Marker) => void
  /** Audio just played (a provider that echoes the outbound track). */
  readonly played?: (chunk: Uint8Array) => void
  /** Runs at the start of every tick (a provider that reports an empty queue). */
  readonly beforeTick?: () => void
}): FakePlayout<Marker> => {
  const received: Array<Uint8Array> = []
  const played: Array<Uint8Array> = []
  const queue: Array<Queued<Marker>> = []
  let clears = 0
  const tick = () => {
    options.beforeTick?.()
    let budget = options.frameBytes
    while (queue.length > 0) {
      const head = queue[0]!
      if (head._tag === "Mark") {
        queue.shift()
        options.reached(head.marker)
        continue
      }
      if (budget === 0) break
      const take = head.data.subarray(0, budget)
      played.push(take)
      options.played?.(take)
      budget -= take.length
      head.data = head.data.subarray(take.length)
      if (head.data.length === 0) queue.shift()
    }
  }
  const timer = setInterval(tick, options.frameMillis)
  return {
    audio: (data) => {
      received.push(data)
      queue.push({ _tag: "Audio", data })
    },
    mark: (marker) => void queue.push({ _tag: "Mark", marker }),
    clear: () => {
      clears++
      return queue.splice(0, queue.length).flatMap((item) => (item._tag === "Mark" ? [item.marker] : []))
    },
    received: () => concat(received),
    played: () => concat(played),
    clears: () => clears,
    isEmpty: () => queue.length === 0,
    stop: () => clearInterval(timer)
  }
}
