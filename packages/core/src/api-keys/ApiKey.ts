/** What an API key looks like: its prefix (`agl_`) and how much of it is kept for display. */
export const KEY_PREFIX = "agl_"
/** How much of the key is kept for display: the prefix and 8 characters of the random part. */
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 8
