/**
 * A fake Vobiz on 127.0.0.1: the fake Plivo-compatible carrier (`@agentline/telephony-plivo`'s
 * `testing/FakeCarrier`) in Vobiz's dialect — `X-Auth-ID`/`X-Auth-Token` checked, `/api/v1` paths,
 * callbacks signed over the URL without its query, `POST|DELETE numbers/{+n}/application`, and the
 * account named in inbound requests (`ParentAuthID`).
 */
import * as FakeCarrier from "@agentline/telephony-plivo/testing/FakeCarrier"
import type { Effect, Scope } from "effect"
import { dialect } from "../Vobiz.js"

export * from "@agentline/telephony-plivo/testing/FakeCarrier"

export const fake: FakeCarrier.DialectFake = {
  dialect,
  authenticates: (headers, account) => headers["x-auth-id"] === account.authId && headers["x-auth-token"] === account.authToken,
  inboundParams: (call) => ({ ParentAuthID: call.account.authId }),
  linkPath: /^numbers\/([^/]+)\/application$/
}

export const make = (options: FakeCarrier.FakeOptions): Effect.Effect<FakeCarrier.FakeCarrier, never, Scope.Scope> =>
  FakeCarrier.make(fake, options)
