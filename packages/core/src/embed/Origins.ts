/**
 * Which pages may use an embed token: the token's allowed origins, as written by its owner, and the
 * check of a request's `Origin` against them. Pure functions, tested over generated hosts.
 *
 * An entry is `*` (any page), or `[scheme://]host[:port]` where host is a domain name, `localhost`, an
 * IPv4 address or a bracketed IPv6 address, and may start with `*.` (any subdomain of the rest, and
 * the rest itself). Without a scheme both `http` and `https` match; without a port any port does. A
 * domain also matches with `www.` added or removed (the reference's rule: `example.com` and
 * `www.example.com` are one site). A path, query, fragment or credentials are refused: an origin has
 * none. Hosts are compared in their ASCII (punycode) form, lowercase.
 */
import { Either } from "effect"

export type OriginPattern =
  | { readonly _tag: "Any" }
  | {
    readonly _tag: "Host"
    readonly scheme: "http" | "https" | null
    /** ASCII, lowercase, without the `*.` of a wildcard. */
    readonly host: string
    readonly wildcard: boolean
    readonly port: number | null
  }

/** The most origins one token may list, and the longest entry. */
export const MAX_ORIGINS = 100
export const MAX_ORIGIN_LENGTH = 300

const defaultPort = (scheme: string) => (scheme === "https:" ? 443 : 80)

/** Parses one entry; `Left` says what is wrong with it, in words a site owner can act on. */
export const parseOriginPattern = (entry: string): Either.Either<OriginPattern, string> => {
  const text = entry.trim()
  if (text === "") return Either.left("is empty; write an origin such as https://shop.example.com")
  if (text.length > MAX_ORIGIN_LENGTH) return Either.left(`is longer than ${MAX_ORIGIN_LENGTH} characters`)
  if (text === "*") return Either.right({ _tag: "Any" })
  const schemeMatch = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(text)
  const scheme = schemeMatch === null ? null : schemeMatch[1]!.toLowerCase()
  if (scheme !== null && scheme !== "http" && scheme !== "https") {
    return Either.left(`has the scheme '${scheme}'; only http and https pages can embed the widget`)
  }
  let rest = schemeMatch === null ? text : text.slice(schemeMatch[0].length)
  if (rest.endsWith("/")) rest = rest.slice(0, -1)
  if (/[/?#@\\]/.test(rest)) {
    return Either.left("is not an origin: write only the scheme, host and port (https://example.com), with no path, query or user")
  }
  const wildcard = rest.startsWith("*.")
  const hostAndPort = wildcard ? rest.slice(2) : rest
  if (hostAndPort.includes("*")) return Either.left("may use * only as the first label (*.example.com), or alone for any origin")
  let url: URL
  try {
    url = new URL(`${scheme ?? "https"}://${hostAndPort}`)
  } catch {
    return Either.left("is not a host name, an IP address or localhost")
  }
  const host = url.hostname
  if (host === "" || (wildcard && (host.startsWith("[") || /^\d+(\.\d+){3}$/.test(host)))) {
    return Either.left("is not a host name, an IP address or localhost")
  }
  if (wildcard && !host.includes(".")) return Either.left("names too wide a wildcard: use *.example.com, not *.com")
  const explicitPort = /:(\d+)$/.exec(hostAndPort)
  const port = explicitPort === null ? null : Number(explicitPort[1])
  if (port !== null && (port < 1 || port > 65535)) return Either.left("has a port outside 1–65535")
  return Either.right({ _tag: "Host", scheme: scheme as "http" | "https" | null, host, wildcard, port })
}

/** The entry as stored and shown back: lowercase, ASCII, without a trailing slash. */
export const formatOriginPattern = (pattern: OriginPattern): string =>
  pattern._tag === "Any"
    ? "*"
    : `${pattern.scheme === null ? "" : `${pattern.scheme}://`}${pattern.wildcard ? "*." : ""}${pattern.host}${pattern.port === null ? "" : `:${pattern.port}`}`

/**
 * A token's allowed origins, checked and normalized (duplicates dropped, order kept); `Left` lists
 * each entry at fault with its index.
 */
export const parseAllowedOrigins = (
  entries: ReadonlyArray<string>
): Either.Either<ReadonlyArray<string>, ReadonlyArray<{ readonly index: number; readonly entry: string; readonly reason: string }>> => {
  if (entries.length === 0) {
    return Either.left([{ index: -1, entry: "", reason: "lists no origin: list the origins of the pages that embed the widget, or [\"*\"] for any page" }])
  }
  if (entries.length > MAX_ORIGINS) {
    return Either.left([{ index: -1, entry: "", reason: `lists ${entries.length} origins; at most ${MAX_ORIGINS} are allowed` }])
  }
  const problems: Array<{ index: number; entry: string; reason: string }> = []
  const normalized: Array<string> = []
  entries.forEach((entry, index) => {
    const parsed = parseOriginPattern(entry)
    if (Either.isLeft(parsed)) problems.push({ index, entry, reason: parsed.left })
    else {
      const text = formatOriginPattern(parsed.right)
      if (!normalized.includes(text)) normalized.push(text)
    }
  })
  return problems.length > 0 ? Either.left(problems) : Either.right(normalized)
}

const withoutWww = (host: string) => (host.startsWith("www.") ? host.slice(4) : host)

/** A request's origin (the `Origin` header, a browser's own), parsed; `undefined` when it is not one. */
export const parseRequestOrigin = (origin: string): { readonly scheme: "http" | "https"; readonly host: string; readonly port: number } | undefined => {
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "") return undefined
  return { scheme: url.protocol === "https:" ? "https" : "http", host: url.hostname, port: url.port === "" ? defaultPort(url.protocol) : Number(url.port) }
}

/**
 * Whether a page of `origin` may use a token allowing `allowed` (normalized entries). A request
 * without an origin, or with an opaque one (`null`: a sandboxed frame, a file), matches `*` only.
 */
export const originAllowed = (origin: string | undefined, allowed: ReadonlyArray<string>): boolean => {
  if (allowed.includes("*")) return true
  if (origin === undefined) return false
  const page = parseRequestOrigin(origin)
  if (page === undefined) return false
  return allowed.some((entry) => {
    const pattern = parseOriginPattern(entry)
    if (Either.isLeft(pattern) || pattern.right._tag === "Any") return Either.isRight(pattern)
    const p = pattern.right
    if (p.scheme !== null && p.scheme !== page.scheme) return false
    if (p.port !== null && p.port !== page.port) return false
    if (p.wildcard) return page.host === p.host || page.host.endsWith(`.${p.host}`)
    return page.host === p.host || withoutWww(page.host) === withoutWww(p.host) && !/^[\d.]+$|^\[/.test(p.host)
  })
}
