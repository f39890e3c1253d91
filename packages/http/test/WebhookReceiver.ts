/**
 * A real HTTP receiver on 127.0.0.1 for webhook tests: it records every request (headers and raw
 * body) and answers as the test says (a status per request, or a delay past the sender's timeout).
 */
import * as NodeHttp from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly headers: Record<string, string>
  readonly body: string
  readonly json: any
  readonly status: number
}

export interface Receiver {
  readonly url: string
  readonly received: () => ReadonlyArray<Received>
  /** Answers of the next requests, in order (a number: that status; `hang`: no answer for 5 s); then 200. */
  readonly script: (answers: ReadonlyArray<number | "hang">) => void
  readonly close: () => Promise<void>
}

export const startReceiver = (port = 0): Promise<Receiver> =>
  new Promise((resolve) => {
    const received: Array<Received> = []
    let answers: Array<number | "hang"> = []
    const server = NodeHttp.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        const answer = answers.shift() ?? 200
        const body = Buffer.concat(chunks).toString("utf8")
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
        if (answer === "hang") {
          setTimeout(() => res.writeHead(200).end(), 5000).unref()
          return
        }
        received.push({ headers, body, json: JSON.parse(body), status: answer })
        res.writeHead(answer, { "content-type": "text/plain" }).end(answer < 300 ? "ok" : "nope")
      })
    })
    server.listen(port, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}/hooks`,
        received: () => received,
        script: (next) => {
          answers = [...next]
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })
