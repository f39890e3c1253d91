/**
 * A call's requests to the application (status callbacks, events), as a fake carrier posts them:
 * in order, each after the one before it has been answered, every delivery recorded; and what tests
 * do with them afterwards, as carriers and attackers do: post them again (a carrier retrying a
 * delivery, or delivering out of order) and post one with a wrong signature or none.
 *
 * How a request is signed and sent is the provider's own (`send`); the order, the record, the replays
 * and forgeries are here.
 */

/** How a request is authenticated when sent: as the provider signs it, with another key, or not at all. */
export type Signing = "good" | "wrong" | "missing"

export interface Delivery<Request> {
  readonly request: Request
  /** How it was signed when posted (a fake posting a forged request on purpose records it too). */
  readonly signing: Signing
  /** The application's HTTP status (0: unreachable). */
  readonly status: number
}

export interface CallbackLog<Request> {
  /** Queues `request`, posted once those before it were answered. */
  readonly post: (request: Request, signing?: Signing) => void
  /** Runs `action` once everything queued so far has been posted. */
  readonly afterPosted: (action: () => void) => void
  /** Resolves once everything queued so far has been posted. */
  readonly settled: () => Promise<void>
  /** The deliveries so far, in order. */
  readonly delivered: () => ReadonlyArray<Delivery<Request>>
  /** Posts the deliveries signed as the provider signs (those `keep` selects) again, in their order or reversed: the statuses. */
  readonly resend: (order: "same" | "reverse", keep?: (request: Request) => boolean) => Promise<ReadonlyArray<number>>
  /** Posts one delivery (default: the first) again, with a wrong signature or none: the status. */
  readonly forge: (
    signing: "wrong" | "missing",
    pick?: (delivered: ReadonlyArray<Delivery<Request>>) => Delivery<Request> | undefined
  ) => Promise<number>
}

export const make = <Request>(send: (request: Request, signing: Signing) => Promise<number>): CallbackLog<Request> => {
  const delivered: Array<Delivery<Request>> = []
  let posting: Promise<void> = Promise.resolve()
  const settled = async () => {
    // A post may queue another one (an end reported after a progress report): wait for those too.
    let last: Promise<void> | undefined
    while (last !== posting) {
      last = posting
      await last
    }
  }
  return {
    post: (request, signing = "good") => {
      posting = posting.then(async () => {
        const status = await send(request, signing)
        delivered.push({ request, signing, status })
      })
    },
    afterPosted: (action) => void (posting = posting.then(action)),
    settled,
    delivered: () => [...delivered],
    resend: async (order, keep = () => true) => {
      await settled()
      const kept = delivered.filter((d) => d.signing === "good" && keep(d.request))
      const statuses: Array<number> = []
      for (const delivery of order === "same" ? kept : kept.reverse()) statuses.push(await send(delivery.request, "good"))
      return statuses
    },
    forge: async (signing, pick = (all) => all[0]) => {
      await settled()
      const chosen = pick(delivered.filter((d) => d.signing === "good"))
      if (chosen === undefined) throw new Error("the call posted nothing to forge")
      return send(chosen.request, signing)
    }
  }
}
