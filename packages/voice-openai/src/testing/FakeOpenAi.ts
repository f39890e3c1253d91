/**
 * A FAKE OpenAI-compatible server for tests and demos (127.0.0.1 only), faithful to the wire: SSE
 * `data:` chunks with `chat.completion.chunk` objects, tool calls split into deltas (id and name on the
 * first piece only), the usage chunk without choices, `data: [DONE]`; the speech and transcription SSE
 * events; HTTP errors as `{"error":{message,type,param,code}}`. Each request takes the next scripted
 * answer, or, when the script is empty and a `respond` function is given, what it answers for the
 * request (a scripted conversation partner for end-to-end tests), at once or when its promise settles.
 */
import { Effect } from "effect"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export type Answer =
  | { readonly _tag: "Stream"; readonly chunks: ReadonlyArray<unknown>; readonly done?: boolean }
  /** Sends these chunks, then destroys the connection mid-stream. */
  | { readonly _tag: "Drop"; readonly chunks: ReadonlyArray<unknown> }
  | { readonly _tag: "Status"; readonly status: number; readonly message: string; readonly type: string }

export interface Received {
  readonly path: string
  readonly authorization: string | undefined
  readonly contentType: string | undefined
  /** Parsed JSON, or the raw bytes (multipart uploads). */
  readonly body: any
}

export const chunk = (delta: unknown, finish: string | null = null) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "gpt-4.1-mini",
  choices: [{ index: 0, delta, finish_reason: finish }],
  usage: null
})

export const usageChunk = (prompt: number, completion: number) => ({
  id: "chatcmpl-1",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "gpt-4.1-mini",
  choices: [],
  usage: {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0 }
  }
})

/** The chunks of a streamed reply: the text in pieces, then tool calls, finish reason and usage. */
export const reply = (text: string, toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: unknown }> = []): Answer => ({
  _tag: "Stream",
  chunks: [
    chunk({ role: "assistant", content: "" }),
    ...(text.match(/\S+\s*/g) ?? []).map((piece) => chunk({ content: piece })),
    ...toolCalls.flatMap((call, index) => {
      const args = JSON.stringify(call.arguments)
      const half = Math.ceil(args.length / 2)
      return [
        chunk({ tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name: call.name, arguments: "" } }] }),
        chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }),
        chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] })
      ]
    }),
    chunk({}, toolCalls.length > 0 ? "tool_calls" : "stop"),
    usageChunk(100, Math.max(1, text.split(/\s+/).length))
  ]
})

export const startFakeOpenAi = (answers: Array<Answer>, respond?: (request: Received) => Answer | Promise<Answer>) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly server: Http.Server }>((resume) => {
      const received: Array<Received> = []
      const server = Http.createServer((req, res) => {
        const pieces: Array<Buffer> = []
        req.on("data", (piece: Buffer) => pieces.push(piece))
        req.on("end", () => {
          const raw = Buffer.concat(pieces)
          const json = (req.headers["content-type"] ?? "").startsWith("application/json")
          received.push({
            path: req.url ?? "",
            authorization: req.headers.authorization,
            contentType: req.headers["content-type"],
            body: json ? JSON.parse(raw.toString()) : raw
          })
          const scripted = answers.shift()
          void Promise.resolve(scripted ?? respond?.(received[received.length - 1]!)).then((answer) => {
            if (answer === undefined || answer._tag === "Status") {
              const status = answer?.status ?? 500
              res.writeHead(status, { "content-type": "application/json" })
              res.end(JSON.stringify({ error: { message: answer?.message ?? "no scripted answer", type: answer?.type ?? "server_error", param: null, code: null } }))
              return
            }
            res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
            for (const c of answer.chunks) res.write(`data: ${JSON.stringify(c)}\n\n`)
            if (answer._tag === "Drop") {
              setTimeout(() => res.socket?.destroy(), 20)
              return
            }
            if (answer.done !== false) res.write("data: [DONE]\n\n")
            res.end()
          })
        })
      })
      server.listen(0, "127.0.0.1", () => {
        const port = (server.address() as AddressInfo).port
        resume(Effect.succeed({ url: `http://127.0.0.1:${port}/v1`, received, server }))
      })
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
