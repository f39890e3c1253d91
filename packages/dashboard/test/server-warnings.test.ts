import { describe, expect, it } from "@effect/vitest"
import { serverWarnings } from "../src/components/serverWarnings.js"

describe("serverWarnings", () => {
  it("a titled warning per problem, with the server's message; none when nothing is wrong", () => {
    expect(serverWarnings([])).toEqual([])
    expect(serverWarnings([
      { model: "llm", message: "Set AGENTLINE_LLM." },
      { model: "tts", message: "Install espeak-ng." },
      { model: "embeddings", message: "Something new." }
    ])).toEqual([
      { title: "No language model: agents cannot hold a conversation", message: "Set AGENTLINE_LLM." },
      { title: "Speech synthesis cannot run: agents cannot speak", message: "Install espeak-ng." },
      { title: "The server's configuration needs attention", message: "Something new." }
    ])
  })
})
