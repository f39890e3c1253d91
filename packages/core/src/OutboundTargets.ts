/**
 * Where the server may send requests whose URL a tenant chose (event webhooks, agents' webhook nodes):
 * http(s) only, and never to private, loopback or link-local addresses unless the operator allows them.
 * One rule for both, checked when a URL is saved and again, on the resolved address, when it is sent.
 */
import { Context, Layer } from "effect"
import * as Net from "node:net"

const blocked = (() => {
  const list = new Net.BlockList()
  // IPv4: "this network", private (RFC 1918), carrier-grade NAT, loopback, link-local (cloud metadata
  // at 169.254.169.254), IETF protocol assignments, TEST-NETs, benchmarking, multicast and reserved.
  for (
    const [net, prefix] of [
      ["0.0.0.0", 8],
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["172.16.0.0", 12],
      ["192.0.0.0", 24],
      ["192.0.2.0", 24],
      ["192.168.0.0", 16],
      ["198.18.0.0", 15],
      ["198.51.100.0", 24],
      ["203.0.113.0", 24],
      ["224.0.0.0", 4],
      ["240.0.0.0", 4]
    ] as const
  ) list.addSubnet(net, prefix, "ipv4")
  // IPv6: unspecified, loopback, unique local, link-local, multicast, documentation, NAT64 (can reach
  // private IPv4 through a gateway).
  for (
    const [net, prefix] of [
      ["::", 128],
      ["::1", 128],
      ["fc00::", 7],
      ["fe80::", 10],
      ["ff00::", 8],
      ["2001:db8::", 32],
      ["64:ff9b::", 96]
    ] as const
  ) list.addSubnet(net, prefix, "ipv6")
  return list
})()

/**
 * Whether an IP address is one a tenant's webhook must not reach: private, loopback, link-local and
 * other non-public ranges, IPv4-mapped IPv6 forms included. Something that is not an IP is not private
 * (resolve names first).
 */
export const isPrivateAddress = (address: string): boolean => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  const kind = Net.isIP(bare)
  if (kind === 4) return blocked.check(bare, "ipv4")
  if (kind === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
    if (mapped !== null) return blocked.check(mapped[1]!, "ipv4")
    return blocked.check(bare, "ipv6")
  }
  return false
}

/**
 * Why a URL may not be a webhook target before any name is resolved (its scheme, or a host that is a
 * private IP or `localhost`); `undefined` when it may be tried. Names are checked again when resolved.
 * A host is compared as DNS resolves it: case and trailing dots aside (`LOCALHOST.` is `localhost`).
 */
export const refusedTarget = (url: string, allowPrivate: boolean): string | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return "the url is not an absolute URL"
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "the url must be http or https"
  if (allowPrivate) return undefined
  const host = parsed.hostname.toLowerCase().replace(/\.+$/, "")
  if (host === "localhost" || host.endsWith(".localhost")) return `${host} is a loopback name`
  if (isPrivateAddress(host)) return `${host} is a private, loopback or link-local address`
  return undefined
}

/**
 * `refusedTarget` for a URL template (a webhook node's `endpoint_url`, rendered per run): checked when its
 * scheme and host are written out; a template there (`https://{{initial_context.host}}/x`) is known only
 * when the run's values are, so it is checked when sent (the transport refuses private addresses then).
 * An empty template is no target at all (the node is skipped when sent).
 */
export const refusedTargetTemplate = (template: string, allowPrivate: boolean): string | undefined => {
  const trimmed = template.trim()
  if (trimmed === "") return undefined
  const placeholder = trimmed.indexOf("{{")
  if (placeholder !== -1) {
    const authorityEnd = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(trimmed)?.[0].length ?? 0
    if (placeholder < authorityEnd || authorityEnd === 0) return undefined
  }
  // Placeholders in the path or query do not change where the request goes.
  return refusedTarget(trimmed.replace(/\{\{[^}]*\}\}/g, "x"), allowPrivate)
}

/**
 * Whether outbound requests to tenant-chosen URLs (event webhooks, agents' webhook nodes) may reach
 * private, loopback and link-local addresses (`AGENTLINE_WEBHOOK_ALLOW_PRIVATE`; off by default).
 */
export class OutboundTargets extends Context.Tag("@agentline/core/OutboundTargets")<OutboundTargets, {
  readonly allowPrivate: boolean
}>() {
  static layer = (options: { readonly allowPrivate: boolean }) => Layer.succeed(OutboundTargets, options)
}
