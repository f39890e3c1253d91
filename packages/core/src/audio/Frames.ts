/**
 * Cutting a byte stream into fixed-size audio frames. Child processes write whatever their buffers
 * hold; telephony wants 20 ms frames of whole samples (`frameBytes` says how many bytes that is).
 */

export interface Framer {
  /** The whole frames these bytes complete; the rest waits for more. */
  readonly push: (data: Uint8Array) => ReadonlyArray<Uint8Array>
  /** What is left at the end (shorter than a frame, whole samples only), if anything. */
  readonly flush: () => Uint8Array | undefined
}

export const makeFramer = (size: number, sampleWidth: number): Framer => {
  let pending = new Uint8Array(0)
  return {
    push: (data) => {
      const joined = new Uint8Array(pending.length + data.length)
      joined.set(pending)
      joined.set(data, pending.length)
      const frames: Array<Uint8Array> = []
      let offset = 0
      while (joined.length - offset >= size) {
        frames.push(joined.slice(offset, offset + size))
        offset += size
      }
      pending = joined.slice(offset)
      return frames
    },
    flush: () => {
      const whole = pending.length - (pending.length % sampleWidth)
      const rest = pending.slice(0, whole)
      pending = new Uint8Array(0)
      return rest.length > 0 ? rest : undefined
    }
  }
}
