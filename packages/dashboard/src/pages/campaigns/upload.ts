/**
 * Step 2 of the contacts upload: the CSV PUT to the presigned `upload_url` (step 1 and the campaign
 * creation go through the typed client). An `XMLHttpRequest` rather than `fetch`, because only it
 * reports upload progress, which the page shows as a progress bar.
 */
import { CSRF_COOKIE, CSRF_HEADER } from "@agentline/api/Authentication"
import { readCookie } from "../../api/client.js"

export interface UploadProgress {
  readonly loaded: number
  readonly total: number
}

/**
 * The address to PUT to. The server signs a URL on its public base address; the dashboard is served by
 * that same server, so when the base address names another origin (a proxy's, a container's), the
 * same path on this page's origin is used: a cross-origin PUT would need CORS the server does not offer.
 */
export const uploadTarget = (uploadUrl: string, pageOrigin: string): string => {
  const url = new URL(uploadUrl, pageOrigin)
  return url.origin === pageOrigin ? url.href : `${pageOrigin}${url.pathname}${url.search}`
}

export class UploadFailed extends Error {
  constructor(readonly status: number, readonly detail: string) {
    super(detail)
  }
}

const detailOf = (text: string): string => {
  try {
    const body: unknown = JSON.parse(text)
    if (typeof body === "object" && body !== null && "detail" in body) {
      const detail = (body as { detail: unknown }).detail
      return typeof detail === "string" ? detail : JSON.stringify(detail)
    }
  } catch {
    // Not JSON.
  }
  return text === "" ? "no answer" : text
}

/** PUTs `file` as `text/csv`; resolves when stored, rejects with `UploadFailed` (or on abort). */
export const uploadCsv = (
  uploadUrl: string,
  file: Blob,
  onProgress: (progress: UploadProgress) => void,
  signal?: AbortSignal
): Promise<void> => uploadFile(uploadUrl, file, "text/csv", onProgress, signal)

/** PUTs `file` with `contentType` (a recording's `audio/wav`) to a signed upload URL of this server. */
export const uploadFile = (
  uploadUrl: string,
  file: Blob,
  contentType: string,
  onProgress: (progress: UploadProgress) => void,
  signal?: AbortSignal
): Promise<void> =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open("PUT", uploadTarget(uploadUrl, window.location.origin))
    xhr.setRequestHeader("Content-Type", contentType)
    const csrf = readCookie(CSRF_COOKIE)
    if (csrf !== undefined) xhr.setRequestHeader(CSRF_HEADER, csrf)
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress({ loaded: event.loaded, total: event.total })
    }
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        onProgress({ loaded: file.size, total: file.size })
        resolve()
      } else reject(new UploadFailed(xhr.status, detailOf(xhr.responseText)))
    }
    xhr.onerror = () => reject(new UploadFailed(0, "the server could not be reached"))
    xhr.onabort = () => reject(new UploadFailed(0, "the upload was canceled"))
    signal?.addEventListener("abort", () => xhr.abort())
    xhr.send(file)
  })
