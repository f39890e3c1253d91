/**
 * The contract stand-in's side of transfers (`ContractHost`): it asks the adapter to transfer a hosted
 * call, with a result URL at the server's path, and serves that path as the server does —
 *
 *   POST|GET  /api/v1/telephony/transfer-result/{transfer_id}   verify (401), parseTransferResult (422), the result
 *
 * — keeping every result reported (the first counts, later ones are recorded as the server logs them).
 */
import { Clock, Effect } from "effect"
import type { TelephonyError, TelephonyProvider, WebhookRequest, WebhookResponse } from "../TelephonyProvider.js"
import type { TransferMode, TransferResult } from "../Transfer.js"

/** One transfer as the stand-in keeps it. */
export interface HostedTransfer {
  readonly id: string
  readonly providerCallId: string
  readonly target: string
  /** Every result reported, in order (the first is the transfer's). */
  readonly results: Array<TransferResult>
  /** The HTTP statuses answered to the result route. */
  readonly requests: Array<number>
}

export interface TransferInput {
  readonly config: unknown
  readonly providerCallId: string
  readonly target: string
  readonly from: string | undefined
  readonly timeoutSeconds?: number
  /** Default `cold`. */
  readonly mode?: TransferMode
  readonly briefing?: string
}

const detail = (status: number, text: string): WebhookResponse => ({
  status,
  contentType: "application/json",
  body: JSON.stringify({ detail: text })
})

export const make = (url: string, adapterOf: () => { readonly adapter: TelephonyProvider }) => {
  const transfers: Array<HostedTransfer> = []
  const configs = new Map<string, unknown>()
  let next = 1

  const transfer = (input: TransferInput): Effect.Effect<HostedTransfer, TelephonyError> =>
    Effect.gen(function*() {
      const { adapter } = adapterOf()
      if (adapter.calls?.transfer === undefined) return yield* Effect.dieMessage(`${adapter.name} does no transfers`)
      const hosted: HostedTransfer = {
        id: `tr${next++}`,
        providerCallId: input.providerCallId,
        target: input.target,
        results: [],
        requests: []
      }
      transfers.push(hosted)
      configs.set(hosted.id, input.config)
      yield* adapter.calls.transfer({
        config: input.config,
        providerCallId: input.providerCallId,
        target: input.target,
        from: input.from,
        timeoutSeconds: input.timeoutSeconds ?? 20,
        mode: input.mode ?? "cold",
        briefing: input.mode === "warm" ? input.briefing : undefined,
        resultUrl: `${url}/api/v1/telephony/transfer-result/${hosted.id}`,
        onResult: (result) => Effect.sync(() => void hosted.results.push(result))
      })
      return hosted
    })

  const route = (id: string, request: WebhookRequest): Effect.Effect<WebhookResponse> =>
    Effect.gen(function*() {
      const { adapter } = adapterOf()
      const hosted = transfers.find((t) => t.id === id)
      const webhooks = adapter.webhooks
      if (hosted === undefined || webhooks?.parseTransferResult === undefined) return detail(404, "Unknown transfer")
      const config = configs.get(id)
      const answered = (response: WebhookResponse) => {
        hosted.requests.push(response.status)
        return response
      }
      if (!(yield* webhooks.verify({ config, request }))) return answered(detail(401, "Invalid signature"))
      const parsed = yield* Effect.either(webhooks.parseTransferResult({ config, request }))
      if (parsed._tag === "Left") return answered(detail(422, parsed.left.message))
      if (parsed.right !== undefined) hosted.results.push({ ...parsed.right, at: parsed.right.at || (yield* Clock.currentTimeMillis) })
      return answered(webhooks.transferAnswer?.({ result: parsed.right, request, config }) ?? { status: 200, contentType: "application/json", body: "{}" })
    })

  return { transfers, transfer, route }
}
