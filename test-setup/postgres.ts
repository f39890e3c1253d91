/**
 * Vitest global setup: find out once whether a PostgreSQL server is reachable, so that every storage
 * test can run on both dialects (and a developer without PostgreSQL gets the SQLite half with a clear
 * notice instead of a failure).
 *
 * `AGENTLINE_TEST_PG_URL` names the server (default: the local one these machines run, trust auth).
 * Each test file then creates its own fresh database on it (see `@agentline/sql/Testing`).
 * `AGENTLINE_TEST_PG=require` (set by `.ci/run`) turns a missing server into a failure.
 */
import { Socket } from "node:net"

const probe = (url: URL) =>
  new Promise<boolean>((resolve) => {
    const socket = new Socket()
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1500)
    socket.once("connect", () => done(true))
    socket.once("timeout", () => done(false))
    socket.once("error", () => done(false))
    socket.connect(Number(url.port || 5432), url.hostname)
  })

export default async function setup() {
  const url = process.env.AGENTLINE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
  const reachable = process.env.AGENTLINE_TEST_PG === "off" ? false : await probe(new URL(url))
  if (reachable) {
    process.env.AGENTLINE_TEST_PG_URL = url
    process.env.AGENTLINE_TEST_PG_AVAILABLE = "1"
  } else {
    if (process.env.AGENTLINE_TEST_PG === "require") {
      throw new Error(`PostgreSQL is required (AGENTLINE_TEST_PG=require) but ${url} cannot be reached`)
    }
    process.env.AGENTLINE_TEST_PG_AVAILABLE = "0"
    console.warn(
      `\n[agentline] PostgreSQL is not reachable at ${url}: storage tests run on SQLite only and the ` +
        `PostgreSQL half is SKIPPED. Start a server or set AGENTLINE_TEST_PG_URL to run both.\n`
    )
  }
}
