/**
 * The client address that login throttling counts under. By default it is the socket's peer address:
 * `X-Forwarded-For` is written by whoever sends the request, so trusting it by default would let an
 * attacker pick a fresh address for every guess. An operator whose server is reachable only through
 * reverse proxies sets how many (`AGENTLINE_TRUSTED_PROXY_HOPS`, see docs/security.md); each proxy
 * appends the address it received the request from, so the client is the entry that many places left
 * of the socket's peer.
 */
import { UNKNOWN_ADDRESS } from "@agentline/core/users/LoginThrottle"
import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"

/** Longest address kept: IPv6 with a zone fits; anything longer is not an address and is cut. */
const MAX_ADDRESS_LENGTH = 64

export const clientAddress = (
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedProxyHops: number
): string => {
  const socket = socketAddress?.trim() || UNKNOWN_ADDRESS
  if (trustedProxyHops <= 0 || forwardedFor === undefined) return socket.slice(0, MAX_ADDRESS_LENGTH)
  const chain = [...forwardedFor.split(",").map((entry) => entry.trim()).filter((entry) => entry !== ""), socket]
  // Fewer entries than trusted proxies: the request skipped a proxy; the leftmost one is all there is.
  return chain[Math.max(0, chain.length - 1 - trustedProxyHops)]!.slice(0, MAX_ADDRESS_LENGTH)
}

/** The current request's client address under the given trust setting. */
export const ofRequest = (trustedProxyHops: number) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
    clientAddress(
      Option.getOrUndefined(request.remoteAddress),
      request.headers["x-forwarded-for"],
      trustedProxyHops
    ))
