/** Only paths of this site (`/...`, not `//host` or `/\host`): the `next` parameter must not send anyone elsewhere. */
export const safeNext = (next: string | null): string =>
  next !== null && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/"
