import { PublicUrls } from "@agentline/core/PublicUrls"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as PublicUrlsLive from "../src/PublicUrlsLive.js"

describe("PublicUrls (the server's routes)", () => {
  it.effect("every URL the domain hands out is under the public address and /api/v1, one slash between", () =>
    Effect.gen(function*() {
      const urls = yield* PublicUrls
      expect(urls.telephonyCallback({ provider: "twilio", attemptId: 17 })).toBe("https://calls.example.com/api/v1/telephony/callbacks/twilio/17")
      expect(urls.contactsUpload({ key: "3/contacts/u_list.csv", query: new URLSearchParams({ expires: "9", signature: "a+b" }) }))
        .toBe("https://calls.example.com/api/v1/storage/upload/3/contacts/u_list.csv?expires=9&signature=a%2Bb")
      expect(urls.runArtifact({ token: "42.99.mac", artifact: "recording" }))
        .toBe("https://calls.example.com/api/v1/public/download/workflow/42.99.mac/recording")
      expect(urls.telephonyAnswer({ provider: "twilio", attemptId: 17 })).toBe("https://calls.example.com/api/v1/telephony/answer/twilio/17")
      expect(urls.telephonyInbound?.({ provider: "twilio" })).toBe("https://calls.example.com/api/v1/telephony/inbound/twilio")
      // Media streams are WebSockets beside the HTTPS address.
      expect(urls.mediaStream?.({ provider: "twilio", token: "t0k" })).toBe("wss://calls.example.com/api/v1/telephony/media/twilio/t0k")
    }).pipe(Effect.provide(PublicUrlsLive.layer("https://calls.example.com/"))))
})
