/**
 * How the dashboard shows timestamps, on every page the same way: the browser's locale and time zone,
 * a medium date and the time to the minute ("Nov 27, 2026, 3:04 PM"); `seconds` adds the seconds
 * where events a few seconds apart are listed (a call's timeline).
 */
export const formatTime = (iso: string | null | undefined, options: { readonly seconds?: boolean } = {}): string => {
  if (iso === null || iso === undefined || iso === "") return "—"
  const date = new Date(iso)
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: options.seconds === true ? "medium" : "short" })
}
