/**
 * The server's contract suite takes the same carrier objects as the adapters' own contract
 * (`@agentline/telephony-kit/testing/Carrier`, each adapter's `testing/Carrier.ts`). What it adds: the
 * far end of a media stream as PCM (the server hands the voice runtime PCM, so its checks are on
 * samples, after the codec's quantization).
 */
import * as Pcm from "@agentline/core/audio/Pcm"
import type { FakeMediaLeg } from "@agentline/telephony-kit/testing/Carrier"

export type { CarrierFake, CarrierUnderTest, FakeInbound, FakeMediaLeg, Scenario, Started } from "@agentline/telephony-kit/testing/Carrier"

/** A media leg as PCM at the stream's rate. */
export interface PcmLeg {
  readonly sampleRate: number
  readonly url: string
  /** The person on the phone speaks: PCM at `sampleRate`, sent in the provider's framing and codec. */
  readonly speak: (samples: Int16Array) => void
  readonly press: (digit: string) => void
  /** Everything the server sent as audio, decoded. */
  readonly received: () => Int16Array
  /** What the person heard: `received` less what a clear dropped. */
  readonly heard: () => Int16Array
  readonly marks: () => ReadonlyArray<string>
  readonly clears: () => number
  readonly isOpen: () => boolean
}

export const pcmLeg = (leg: FakeMediaLeg): PcmLeg => {
  const { format } = leg
  const samples = (data: Uint8Array) => Pcm.decode({ format, data }).samples
  return {
    sampleRate: format.sampleRate,
    url: leg.url,
    speak: (pcm) => leg.speak(Pcm.encode({ sampleRate: format.sampleRate, samples: pcm }, format).data),
    press: leg.press,
    received: () => samples(leg.received()),
    heard: () => samples(leg.heard()),
    marks: leg.marks,
    clears: leg.clears,
    isOpen: leg.isOpen
  }
}
