/**
 * The addresses this server is reached at, for the links and webhooks the domain hands out. Core
 * knows no routes: it asks this port, and the server (which owns the routes) provides it from
 * `AGENTLINE_PUBLIC_URL`. Each method names one route that exists; add a method together with its
 * route, never before (a provider pointed at a missing route fails in ways nobody sees).
 */
import { Context, Layer } from "effect"
import type { Artifact } from "@agentline/api/runs/Run"

export interface PublicUrlsShape {
  /** Where a provider sends the status callbacks of one call attempt. */
  readonly telephonyCallback: (input: { readonly provider: string; readonly attemptId: number }) => string
  /** Where a provider asks what to do once a call of ours is answered (its answer document). */
  readonly telephonyAnswer: (input: { readonly provider: string; readonly attemptId: number }) => string
  /** Where the contacts file of an upload is PUT; `query` carries the expiry and signature. */
  readonly contactsUpload: (input: { readonly key: string; readonly query: URLSearchParams }) => string
  /** Where the audio file of a recording upload (`/workflow-recordings/upload-url`) is PUT. */
  readonly recordingUpload: (input: { readonly key: string; readonly query: URLSearchParams }) => string
  /** A run in the API (`GET /workflow/{id}/runs/{id}`, with an API key), for the events that report it. */
  readonly run: (input: { readonly workflowId: number; readonly runId: number }) => string
  /** A shareable download of a run's artifact; `token` is the signed link token. */
  readonly runArtifact: (input: { readonly token: string; readonly artifact: Artifact }) => string
  /** A shareable download of a campaign's contacts file; `token` is the signed link token (`campaigns/SourceLinks.ts`). */
  readonly campaignSource: (input: { readonly token: string }) => string
  /**
   * Where a provider sends the inbound calls of a number, when this server answers inbound calls.
   * Absent until it does: numbers bound to an agent are then saved without pointing the provider at
   * a route that does not exist, and `provider_sync` says so.
   */
  readonly telephonyInbound?: ((input: { readonly provider: string }) => string) | undefined
  /**
   * The WebSocket a provider streams an answered call's audio to; `token` is the call's single-use
   * media token (`MediaTokens`). Absent in a server without the media route: calls are then kept open
   * without audio (`KeepOpen`).
   */
  readonly mediaStream?: ((input: { readonly provider: string; readonly token: string }) => string) | undefined
  /**
   * Where a provider posts the result of a transfer to a person (`/telephony/transfer-result/{id}`).
   * Absent in a server without that route: transfers are then refused (recorded as failed).
   */
  readonly telephonyTransferResult?: ((input: { readonly transferId: string }) => string) | undefined
  /**
   * The widget script a website loads to embed an agent (the snippet of an embed token names it).
   * Absent in a server without the widget route: the snippet then says so instead of naming a missing file.
   */
  readonly embedWidgetScript?: (() => string) | undefined
}

export class PublicUrls extends Context.Tag("@agentline/core/PublicUrls")<PublicUrls, PublicUrlsShape>() {
  static layer = (urls: PublicUrlsShape): Layer.Layer<PublicUrls> => Layer.succeed(PublicUrls, urls)
}
