/**
 * A fake Plivo on 127.0.0.1 (see `FakeCarrier.ts`): Basic auth with an account's Auth ID and token,
 * `POST Number/{n}/ {app_id}` to link numbers, and no account parameter in inbound requests (Plivo
 * documents none: the adapter puts `account_id` on the application's answer URL).
 *
 *   const fake = yield* FakePlivo.make({ accounts: [{ authId: "MA1", authToken: "token" }] })
 *   const plivo = yield* Plivo.make({ apiUrl: fake.url })
 */
import type { Effect, Scope } from "effect"
import { dialect } from "../Plivo.js"
import * as FakeCarrier from "./FakeCarrier.js"

export * from "./FakeCarrier.js"

export const fake: FakeCarrier.DialectFake = {
  dialect,
  authenticates: (headers, account) =>
    headers["authorization"] === `Basic ${Buffer.from(`${account.authId}:${account.authToken}`).toString("base64")}`,
  inboundParams: () => ({}),
  linkPath: /^Number\/([^/]+)$/
}

export const make = (options: FakeCarrier.FakeOptions): Effect.Effect<FakeCarrier.FakeCarrier, never, Scope.Scope> =>
  FakeCarrier.make(fake, options)
