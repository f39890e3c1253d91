/**
 * The server's own configuration problems (`GET /user/configurations/user/validate`), as the banner
 * shows them: a title per service and the server's message, which says what to set or install.
 */
export interface ServerWarning {
  readonly title: string
  readonly message: string
}

const TITLES: Readonly<Record<string, string>> = {
  llm: "No language model: agents cannot hold a conversation",
  stt: "Speech recognition cannot run: agents cannot hear callers",
  tts: "Speech synthesis cannot run: agents cannot speak"
}

export const serverWarnings = (status: ReadonlyArray<{ readonly model: string; readonly message: string }>): ReadonlyArray<ServerWarning> =>
  status.map((problem) => ({ title: TITLES[problem.model] ?? "The server's configuration needs attention", message: problem.message }))
