/** How the dashboard shows timestamps: the browser's locale and time zone, to the minute. */
export const formatTime = (iso: string | null | undefined): string => {
  if (iso === null || iso === undefined || iso === "") return "—"
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })
}
