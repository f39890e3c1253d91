import { describe, expect, it } from "@effect/vitest"
import { clientAddress } from "../src/auth/ClientAddress.js"

describe("clientAddress", () => {
  it.each([
    // socket, X-Forwarded-For, trusted hops → client
    ["203.0.113.9", undefined, 0, "203.0.113.9"],
    ["203.0.113.9", "10.0.0.1", 0, "203.0.113.9"], // not opted in: the header is ignored
    ["10.0.0.2", "198.51.100.7", 1, "198.51.100.7"], // one proxy: the address it saw
    ["10.0.0.2", "1.2.3.4, 198.51.100.7", 1, "198.51.100.7"], // what the client wrote before it is ignored
    ["10.0.0.3", "1.2.3.4, 198.51.100.7, 10.0.0.2", 2, "198.51.100.7"], // two proxies
    ["10.0.0.2", "198.51.100.7", 3, "198.51.100.7"], // fewer entries than proxies: the leftmost
    ["10.0.0.2", " , ", 1, "10.0.0.2"], // empty entries are skipped
    ["10.0.0.2", undefined, 1, "10.0.0.2"],
    [undefined, undefined, 0, "unknown"],
    ["", "198.51.100.7", 1, "198.51.100.7"]
  ] as const)("%s + %s with %i trusted → %s", (socket, forwarded, hops, expected) => {
    expect(clientAddress(socket, forwarded, hops)).toBe(expected)
  })

  it("cuts what cannot be an address to 64 characters", () => {
    expect(clientAddress("10.0.0.2", "x".repeat(500), 1)).toBe("x".repeat(64))
  })
})
