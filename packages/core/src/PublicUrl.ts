import { Context, Layer } from "effect"

/**
 * The address clients and telephony providers reach this server at (no trailing slash), for links
 * and webhooks the domain hands out.
 */
export class PublicUrl extends Context.Tag("@agentline/core/PublicUrl")<PublicUrl, string>() {
  static layer = (url: string) => Layer.succeed(PublicUrl, url.replace(/\/$/, ""))
}
