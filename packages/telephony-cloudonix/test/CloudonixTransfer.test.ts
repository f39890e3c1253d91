/**
 * Cloudonix transfers: the CXML a session is handed, every dial status read from the `action` request
 * (JSON, form or query), and the adapter against the fake over real HTTP — the session's application
 * replaced with the `<Dial>`, the target dialed, the result posted to the action as Cloudonix posts a
 * voice application request (JSON, `CallStatus`, `x-cx-apikey`), a session that is over refused.
 */
import type { WebhookRequest } from "@agentline/telephony-kit/TelephonyProvider"
import { FetchHttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { Cloudonix } from "../src/index.js"
import * as FakeCloudonix from "../src/testing/FakeCloudonix.js"
import { dialDocument, parseResult, parseResultRequest } from "../src/Transfer.js"

const domain = { name: "acme.cloudonix.net", apiKey: "XIfake0123456789" }
const config = { bearer_token: domain.apiKey, domain_id: "acme", application_name: "agentline" }
const HOLD = `<?xml version="1.0" encoding="UTF-8"?><Response><Pause length="3000"/></Response>`

describe("Cloudonix transfer documents and results", () => {
  it("a number is dialed as <Number> with the caller id, a SIP URI as <Sip> without; the result URL is the dial's action, escaped", () => {
    const base = { timeoutSeconds: 25, resultUrl: "https://a.example/api/v1/telephony/transfer-result/t1?x=1&y=2" }
    expect(dialDocument({ ...base, target: "+15551234567", from: "+15550000001" })).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Dial action="https://a.example/api/v1/telephony/transfer-result/t1?x=1&amp;y=2" method="POST" timeout="25" callerId="+15550000001"><Number>+15551234567</Number></Dial><Hangup/></Response>`
    )
    expect(dialDocument({ ...base, target: "sip:desk@pbx.example.com", from: "+15550000001" })).toContain(
      `timeout="25"><Sip>sip:desk@pbx.example.com</Sip></Dial>`
    )
  })

  it("every dial status Cloudonix lists reads as a result; progress is none; anything else is unreadable", () => {
    const table: ReadonlyArray<readonly [string, string | undefined]> = [
      ["completed", "answered"],
      ["in-progress", "answered"],
      ["busy", "busy"],
      ["no-answer", "no_answer"],
      ["failed", "failed"],
      ["canceled", "failed"],
      ["unknown", "failed"],
      ["queued", undefined],
      ["ringing", undefined]
    ]
    for (const [status, outcome] of table) {
      const result = parseResult({ CallStatus: status, Session: "s1" }, 5)
      expect(result === undefined ? undefined : typeof result === "string" ? result : result.outcome).toBe(outcome)
      if (outcome !== undefined) expect(result).toEqual({ outcome, at: 5, cause: `CallStatus=${status}` })
    }
    // Twilio's DialCallStatus, if sent, is the dial's (CallStatus may then be the caller's call).
    expect(parseResult({ DialCallStatus: "busy", CallStatus: "in-progress" }, 1)).toEqual({ outcome: "busy", at: 1, cause: "DialCallStatus=busy" })
    expect(parseResult({ CallStatus: "exploded" }, 1)).toContain("unknown Cloudonix dial status")
    expect(parseResult({ Session: "s1" }, 1)).toContain("without CallStatus")
    // JSON (Cloudonix's POST), a form, a GET's query.
    expect(parseResultRequest(JSON.stringify({ CallStatus: "no-answer" }), "https://a.example/r", 2)).toMatchObject({ outcome: "no_answer" })
    expect(parseResultRequest("CallStatus=busy&Session=s1", "https://a.example/r", 2)).toMatchObject({ outcome: "busy" })
    expect(parseResultRequest("", "https://a.example/r?CallStatus=completed", 2)).toMatchObject({ outcome: "answered" })
    expect(parseResultRequest("[1]", "https://a.example/r", 2)).toContain("neither a JSON object nor a form")
  })
})

/** A server on 127.0.0.1 that keeps every request and answers with `HOLD` (the call stays up). */
const recorder = Effect.acquireRelease(
  Effect.promise(async () => {
    const requests: Array<WebhookRequest> = []
    const server = Http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      request.on("data", (chunk: Buffer) => chunks.push(chunk))
      request.on("end", () => {
        const headers: Record<string, string> = {}
        for (const [k, v] of Object.entries(request.headers)) if (typeof v === "string") headers[k] = v
        requests.push({ method: request.method ?? "POST", url: `http://127.0.0.1${request.url}`, headers, rawBody: new Uint8Array(Buffer.concat(chunks)) })
        response.writeHead(200, { "content-type": "application/xml" }).end(HOLD)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return { requests, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
  }),
  ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
)

const until = (check: () => boolean, what: string) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!check()) {
      if (Date.now() > deadline) return yield* Effect.dieMessage(`timed out waiting for ${what}`)
      yield* Effect.sleep("10 millis")
    }
  })

describe("Cloudonix transfers against the fake", () => {
  it.scopedLive("the session is handed the <Dial>; the target is dialed; the dial's result comes to the action as a JSON voice application request; a session that is over is refused", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeCloudonix.start({ domains: [domain], secondMillis: 5 })),
        (f) => Effect.promise(() => f.close())
      )
      const server = yield* recorder
      const adapter = yield* Cloudonix.make({ apiUrl: fake.url }).pipe(Effect.provide(FetchHttpClient.layer))
      fake.behave("+15557770001", { answer: "human", talkSeconds: 3000 })
      fake.behave("+15557770002", { answer: "busy" })
      const { providerCallId } = yield* adapter.calls.place({
        config,
        to: "+15557770001",
        from: "+15550000001",
        attemptId: 1,
        callbackUrl: `${server.url}/callbacks`,
        answerUrl: `${server.url}/answer`,
        whenAnswered: { _tag: "KeepOpen" },
        onEvent: () => Effect.void
      })
      const call = fake.call(providerCallId)!
      yield* until(() => call.answers.includes(HOLD), "the call to be answered and held")
      const resultUrl = `${server.url}/api/v1/telephony/transfer-result/t1`
      yield* adapter.calls.transfer!({
        config,
        providerCallId,
        target: "+15557770002",
        from: "+15550000001",
        timeoutSeconds: 20,
        mode: "cold",
        briefing: undefined,
        resultUrl,
        onResult: () => Effect.dieMessage("Cloudonix reports over HTTP")
      })
      expect(call.answers.at(-1)).toBe(dialDocument({ target: "+15557770002", from: "+15550000001", timeoutSeconds: 20, resultUrl }))
      expect(call.dialedTo).toBe("+15557770002")
      const isResult = (r: WebhookRequest) => r.url.endsWith("/api/v1/telephony/transfer-result/t1")
      yield* until(() => server.requests.some(isResult), "the dial's result")
      const posted = server.requests.find(isResult)!
      expect(posted.headers["content-type"]).toContain("application/json")
      const body = JSON.parse(new TextDecoder().decode(posted.rawBody))
      expect(body).toMatchObject({ CallStatus: "busy", Session: providerCallId })
      expect(body.DialCallStatus).toBeUndefined()
      expect(yield* adapter.webhooks.verify({ config, request: posted })).toBe(true)
      expect(yield* adapter.webhooks.parseTransferResult!({ config, request: posted })).toMatchObject({ outcome: "busy", cause: "CallStatus=busy" })
      // The action's answer was the recorder's HOLD here; hung up, the session is over and cannot be transferred.
      yield* adapter.calls.hangUp({ config, providerCallId })
      const refused = yield* Effect.flip(adapter.calls.transfer!({ config, providerCallId, target: "+15557770002", from: undefined, timeoutSeconds: 20, mode: "cold", briefing: undefined, resultUrl, onResult: () => Effect.void }))
      expect(refused.retryable).toBe(false)
      expect(refused.message).toContain("is over")
    }))
})
