/** What can go wrong uploading a contacts file or using one. */
import { Schema } from "effect"

/** The declared size is above what this server accepts. */
export class UploadTooLarge extends Schema.TaggedError<UploadTooLarge>()("UploadTooLarge", {
  fileSize: Schema.Number,
  maxBytes: Schema.Number
}) {
  override get message() {
    return `file_size ${this.fileSize} exceeds the maximum upload size of ${this.maxBytes} bytes; split the contacts into smaller files`
  }
}

/** The upload URL's signature is wrong or expired, or its key unknown (which one is not said). */
export class UploadUrlInvalid extends Schema.TaggedError<UploadUrlInvalid>()("UploadUrlInvalid", {}) {
  override get message() {
    return "Upload URL signature is invalid or expired; request a new upload URL"
  }
}

export class UploadContentTypeRefused extends Schema.TaggedError<UploadContentTypeRefused>()("UploadContentTypeRefused", {
  contentType: Schema.NullOr(Schema.String),
  /** The type to send: `text/csv` for contacts, the declared audio type for a recording. */
  expected: Schema.optionalWith(Schema.String, { default: () => "text/csv" })
}) {
  override get message() {
    return `Send the file with the header Content-Type: ${this.expected} (got '${this.contentType ?? "none"}')`
  }
}

/** The body went past `limit` bytes: the size declared for the URL, or the server's maximum. */
export class UploadBodyTooLarge extends Schema.TaggedError<UploadBodyTooLarge>()("UploadBodyTooLarge", {
  limit: Schema.Number,
  declared: Schema.Boolean
}) {
  override get message() {
    return this.declared
      ? `The body is larger than the file_size declared for this upload URL (${this.limit} bytes); nothing was stored. ` +
        `Request a new URL with the real file_size`
      : `The body is larger than the maximum upload size of ${this.limit} bytes; nothing was stored`
  }
}

/** The connection failed while the body was read. */
export class UploadBodyUnreadable extends Schema.TaggedError<UploadBodyUnreadable>()("UploadBodyUnreadable", {
  reason: Schema.String
}) {
  override get message() {
    return `The upload body could not be read (${this.reason}); send it again`
  }
}

/** A campaign's `source_id` that is not an uploaded file of the organization. */
export class UploadNotFound extends Schema.TaggedError<UploadNotFound>()("UploadNotFound", { fileKey: Schema.String }) {
  override get message() {
    return `source_id '${this.fileKey}' is not an uploaded file of this organization; upload it first`
  }
}

/** The upload is recorded but its bytes are gone from the blob store. */
export class UploadNoLongerStored extends Schema.TaggedError<UploadNoLongerStored>()("UploadNoLongerStored", {
  fileKey: Schema.String
}) {
  override get message() {
    return `The file '${this.fileKey}' is no longer stored; upload it again`
  }
}

/** An upload URL works once; the file stored with it stays as it is. */
export class UploadUrlUsed extends Schema.TaggedError<UploadUrlUsed>()("UploadUrlUsed", { fileKey: Schema.String }) {
  override get message() {
    return "This upload URL has already been used: an upload URL works once, and the file stored with it " +
      "stays as it is. To upload another file, request a new upload URL"
  }
}
