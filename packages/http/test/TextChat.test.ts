/**
 * Text chat (docs/text-chat.md) on SQLite and PostgreSQL, against the real server and the FAKE
 * OpenAI-compatible model playing the demo agent's side (`scriptedReplies`): a conversation through a
 * two-node graph with a transition and an extraction, recorded as a run; revisions and rewind; the
 * latest draft; organization isolation; and the public embed's chat with its origin and revocation checks.
 */
import * as ChatLanguageModel from "@agentline/voice-openai/ChatLanguageModel"
import { startFakeOpenAi } from "@agentline/voice-openai/testing/FakeOpenAi"
import * as LocalTextToSpeech from "@agentline/voice-local/LocalTextToSpeech"
import { defaultPrices, Prices } from "@agentline/voice/session/Costs"
import { AgentLanguageModel, SpeechServiceNames } from "@agentline/voice/session/LanguageModelTools"
import * as ScriptedSpeechToText from "@agentline/voice/testing/ScriptedSpeechToText"
import { OpenAiClient } from "@effect/ai-openai"
import { FetchHttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { VISITOR_MESSAGES } from "@agentline/voice/text-chat/EmbedChat"
import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { agentDefinition, scriptedReplies } from "../src/DemoConversations.js"
import { plainDefinition } from "./DispatchHarness.js"
import { call, dialects, seedOrganization, TestApp } from "./Harness.js"

const SITE = "https://shop.example.com"

const app = (dialect: "sqlite" | "pg") =>
  Layer.unwrapScoped(Effect.gen(function*() {
    const fake = yield* startFakeOpenAi([], scriptedReplies)
    const languageModel = Layer.effect(
      AgentLanguageModel,
      Effect.map(ChatLanguageModel.make({ model: "gpt-4.1-mini" }), (model) => Option.some({ name: "openai:gpt-4.1-mini", model }))
    ).pipe(Layer.provide(OpenAiClient.layer({ apiKey: Redacted.make("sk-fake"), apiUrl: fake.url })), Layer.provide(FetchHttpClient.layer))
    const voiceServices = Layer.mergeAll(
      ScriptedSpeechToText.layer(() => []),
      LocalTextToSpeech.portLayer().pipe(Layer.provide(NodeContext.layer)),
      languageModel,
      Layer.succeed(SpeechServiceNames, { stt: "scripted", tts: "local" }),
      Layer.succeed(Prices, defaultPrices)
    )
    return TestApp(dialect, { voiceServices, trustedProxyHops: 1 })
  }))

const setup = Effect.gen(function*() {
  const org = yield* seedOrganization()
  const agent = yield* call("POST", "/api/v1/workflow/create/definition", {
    apiKey: org.apiKey,
    body: { name: "Acme qualifier", workflow_definition: agentDefinition, template_context_variables: { product: "solar panels" } }
  })
  expect(agent.status).toBe(200)
  const base = `/api/v1/workflow/${agent.body.id}/text-chat/sessions`
  return { org, agent: agent.body, base }
})

interface Turn {
  readonly user_message: { readonly text: string } | null
  readonly assistant_message: { readonly text: string } | null
}

const texts = (body: { readonly session_data: { readonly turns: ReadonlyArray<Turn> } }) =>
  body.session_data.turns.map((t) => [t.user_message?.text ?? null, t.assistant_message?.text ?? null])

for (const dialect of dialects) {
  layer(app(dialect), { timeout: "120 seconds" })(`Text chat [${dialect}]`, (it) => {
    it.effect("a conversation through a transition and an extraction, recorded as a run", () =>
      Effect.gen(function*() {
        const { agent, base, org } = yield* setup
        const created = yield* call("POST", base, { apiKey: org.apiKey, body: { initial_context: { first_name: "Ada" } } })
        expect(created.status).toBe(200)
        expect(created.body).toMatchObject({ workflow_id: agent.id, mode: "textchat", state: "active", is_completed: false, revision: 1 })
        expect(texts(created.body)).toEqual([[null, "Hello Ada, this is Acme."]])
        expect(created.body.checkpoint).toMatchObject({ node_id: "start", turn_count: 1 })
        const session = `${base}/${created.body.workflow_run_id}`

        const second = yield* call("POST", `${session}/messages`, { apiKey: org.apiKey, body: { text: "Yes, I am interested.", expected_revision: 1 } })
        expect(second.status).toBe(200)
        // The model took the transition; at the next node it asks for the city.
        expect(second.body.revision).toBe(2)
        expect(second.body.checkpoint).toMatchObject({ node_id: "ask", node_name: "Ask city" })
        expect(texts(second.body).at(-1)).toEqual(["Yes, I am interested.", "Which city do you live in?"])

        // A change made from an old revision is refused.
        const stale = yield* call("POST", `${session}/messages`, { apiKey: org.apiKey, body: { text: "Hello?", expected_revision: 1 } })
        expect(stale.status).toBe(409)
        expect(stale.body.detail).toContain("revision 2")

        const third = yield* call("POST", `${session}/messages`, { apiKey: org.apiKey, body: { text: "I live in Paris.", expected_revision: 2 } })
        expect(third.status).toBe(200)
        // Extraction and the end-call tool: the city is gathered, the agent says goodbye, the session ends.
        expect(third.body).toMatchObject({ state: "completed", is_completed: true, revision: 3 })
        expect(third.body.gathered_context).toMatchObject({ city: "Paris", call_disposition: "interested" })
        expect(texts(third.body).at(-1)).toEqual(["I live in Paris.", "Thank you, goodbye."])
        expect(third.body.session_data.usage.input_tokens).toBeGreaterThan(0)

        const ended = yield* call("POST", `${session}/messages`, { apiKey: org.apiKey, body: { text: "One more thing" } })
        expect(ended).toMatchObject({ status: 409, body: { detail: "This text chat session has ended" } })

        // The run: completed, with its gathered context, transcript, usage and cost.
        const run = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${created.body.workflow_run_id}`, { apiKey: org.apiKey })
        expect(run.status).toBe(200)
        expect(run.body).toMatchObject({ mode: "textchat", is_completed: true })
        expect(run.body.gathered_context).toMatchObject({ city: "Paris", end_reason: "end_call_tool" })
        expect(run.body.logs.transcript.map((l: { role: string; text: string }) => `${l.role}: ${l.text}`)).toEqual([
          "assistant: Hello Ada, this is Acme.",
          "user: Yes, I am interested.",
          "assistant: Which city do you live in?",
          "user: I live in Paris.",
          "assistant: Thank you, goodbye."
        ])
        expect(run.body.usage_info.llm["openai:gpt-4.1-mini"].total_tokens).toBeGreaterThan(0)
        expect(run.body.cost_info.llm_cost_usd).toBeGreaterThan(0)
        expect(run.body.transcript_url).toBeTruthy()
      }))

    it.effect("rewind drops the turns after a point and the conversation goes on from there; a user ends a session", () =>
      Effect.gen(function*() {
        const { base, org } = yield* setup
        const created = yield* call("POST", base, { apiKey: org.apiKey, body: { name: "Rewind me", initial_context: { first_name: "Bo" } } })
        expect(created.body.name).toBe("Rewind me")
        const session = `${base}/${created.body.workflow_run_id}`
        const opening = created.body.session_data.turns[0].id
        const moved = yield* call("POST", `${session}/messages`, { apiKey: org.apiKey, body: { text: "Yes, I am interested." } })
        expect(moved.body.checkpoint.node_id).toBe("ask")

        const unknown = yield* call("POST", `${session}/rewind`, { apiKey: org.apiKey, body: { cursor_turn_id: "turn_nope" } })
        expect(unknown.status).toBe(422)
        const back = yield* call("POST", `${session}/rewind`, { apiKey: org.apiKey, body: { cursor_turn_id: opening, expected_revision: 2 } })
        expect(back.status).toBe(200)
        expect(back.body).toMatchObject({ revision: 3, state: "active", checkpoint: { node_id: "start", turn_count: 1, turn_id: opening } })
        expect(texts(back.body)).toEqual([[null, "Hello Bo, this is Acme."]])
        // From the start node again: the same transition is taken again.
        const again = yield* call("POST", `${session}/messages`, { apiKey: org.apiKey, body: { text: "Yes, I am interested." } })
        expect(again.body.checkpoint.node_id).toBe("ask")
        expect(again.body.session_data.turns).toHaveLength(2)
        expect((yield* call("GET", session, { apiKey: org.apiKey })).body.revision).toBe(4)

        const end = yield* call("POST", `${session}/end`, { apiKey: org.apiKey, body: {} })
        expect(end.body).toMatchObject({ state: "completed", is_completed: true, gathered_context: { call_disposition: "user_ended_chat" } })
        expect((yield* call("POST", `${session}/rewind`, { apiKey: org.apiKey, body: {} })).status).toBe(409)
      }))

    it.effect("sessions run the latest draft; another organization sees none of them", () =>
      Effect.gen(function*() {
        const { agent, base, org } = yield* setup
        const draft = structuredClone(agentDefinition)
        draft.nodes[0]!.data.greeting = "Hi {{first_name}}, the draft speaking."
        expect((yield* call("PUT", `/api/v1/workflow/${agent.id}`, { apiKey: org.apiKey, body: { workflow_definition: draft } })).status).toBe(200)
        const created = yield* call("POST", base, { apiKey: org.apiKey, body: { initial_context: { first_name: "Cy" } } })
        expect(texts(created.body)).toEqual([[null, "Hi Cy, the draft speaking."]])

        const other = yield* seedOrganization()
        const session = `${base}/${created.body.workflow_run_id}`
        expect((yield* call("GET", session, { apiKey: other.apiKey })).status).toBe(404)
        expect((yield* call("POST", `${session}/messages`, { apiKey: other.apiKey, body: { text: "hi" } })).status).toBe(404)
        expect((yield* call("POST", `${session}/rewind`, { apiKey: other.apiKey, body: {} })).status).toBe(404)
        expect((yield* call("POST", `${session}/end`, { apiKey: other.apiKey, body: {} })).status).toBe(404)
        expect((yield* call("POST", base, { apiKey: other.apiKey, body: {} })).status).toBe(404)
        expect((yield* call("GET", session)).status).toBe(401)
      }))

    it.effect("the embed's chat: from the page that opened the session only, until the token is revoked", () =>
      Effect.gen(function*() {
        const { agent, org } = yield* setup
        const token = yield* call("POST", `/api/v1/workflow/${agent.id}/embed-token`, {
          apiKey: org.apiKey,
          body: { allowed_domains: [SITE], settings: { widgetType: "chat" } }
        })
        const page = { origin: SITE, "x-forwarded-for": "198.51.100.9" }
        const init = yield* call("POST", "/api/v1/public/embed/init", { headers: page, body: { token: token.body.token, context_variables: { first_name: "Di" } } })
        expect(init.status).toBe(200)
        const chat = `/api/v1/public/embed/chat/${init.body.session_token}`

        const opened = yield* call("GET", chat, { headers: page })
        expect(opened.status).toBe(200)
        expect(Object.keys(opened.body).sort()).toEqual(["is_completed", "revision", "state", "turns"])
        expect(opened.body.turns.map((t: Turn) => t.assistant_message?.text)).toEqual(["Hello Di, this is Acme."])
        expect(Object.keys(opened.body.turns[0]).sort()).toEqual(["assistant_message", "id", "status", "user_message"])

        const answered = yield* call("POST", `${chat}/messages`, { headers: page, body: { text: "Yes, I am interested." } })
        expect(answered.status).toBe(200)
        expect(answered.body.turns.at(-1).assistant_message.text).toBe("Which city do you live in?")
        expect(JSON.stringify(answered.body)).not.toContain("solar panels")

        const elsewhere = yield* call("POST", `${chat}/messages`, { headers: { origin: "https://evil.example.net" }, body: { text: "hi" } })
        expect(elsewhere).toMatchObject({ status: 403, body: { detail: "Domain not allowed: https://evil.example.net" } })
        expect((yield* call("GET", "/api/v1/public/embed/chat/emb_session_nope", { headers: page })).status).toBe(403)

        // The run is the embed session's, with the conversation on it.
        const run = yield* call("GET", `/api/v1/workflow/${agent.id}/runs/${init.body.workflow_run_id}`, { apiKey: org.apiKey })
        expect(run.body.logs.transcript).toHaveLength(3)

        expect((yield* call("DELETE", `/api/v1/workflow/${agent.id}/embed-token`, { apiKey: org.apiKey })).status).toBe(200)
        const revoked = yield* call("POST", `${chat}/messages`, { headers: page, body: { text: "Still there?" } })
        expect(revoked).toMatchObject({ status: 403, body: { detail: "Embed token is inactive" } })
      }))

    it.effect("an embed chat ends; a voice widget's session cannot chat", () =>
      Effect.gen(function*() {
        const { agent, org } = yield* setup
        const token = yield* call("POST", `/api/v1/workflow/${agent.id}/embed-token`, { apiKey: org.apiKey, body: { allowed_domains: [SITE], settings: { widgetType: "chat" } } })
        const page = { origin: SITE, "x-forwarded-for": "198.51.100.10" }
        const init = yield* call("POST", "/api/v1/public/embed/init", { headers: page, body: { token: token.body.token } })
        const chat = `/api/v1/public/embed/chat/${init.body.session_token}`
        const sql = yield* SqlClient.SqlClient
        const marks = sql<{ attached_at: unknown; ended_at: unknown }>`SELECT attached_at, ended_at FROM embed_sessions WHERE workflow_run_id = ${init.body.workflow_run_id}`
        expect(yield* marks).toEqual([{ attached_at: null, ended_at: null }])
        expect((yield* call("GET", chat, { headers: page })).status).toBe(200)
        const attached = (yield* marks)[0]!
        expect(attached.attached_at).not.toBeNull()
        expect(attached.ended_at).toBeNull()
        const ended = yield* call("POST", `${chat}/end`, { headers: page, body: {} })
        expect(ended.body).toMatchObject({ state: "completed", is_completed: true })
        const after = (yield* marks)[0]!
        // Attached once (the first request's time is kept), ended when the visitor ended it.
        expect(after.attached_at).toEqual(attached.attached_at)
        expect(after.ended_at).not.toBeNull()
        expect((yield* call("POST", `${chat}/messages`, { headers: page, body: { text: "hi" } })).status).toBe(409)

        yield* call("POST", `/api/v1/workflow/${agent.id}/embed-token`, { apiKey: org.apiKey, body: { settings: { widgetType: "voice" } } })
        const voice = yield* call("POST", "/api/v1/public/embed/init", { headers: page, body: { token: token.body.token } })
        const refused = yield* call("GET", `/api/v1/public/embed/chat/${voice.body.session_token}`, { headers: page })
        expect(refused).toMatchObject({ status: 403, body: { detail: "This session is not a chat session" } })
      }))

    it.effect("a visitor may send twenty messages a minute in a session, then 429; another visitor is not held back", () =>
      Effect.gen(function*() {
        const org = yield* seedOrganization()
        // One node that only answers (the fake model's reply without a tool): the chat goes on.
        const agent = yield* call("POST", "/api/v1/workflow/create/definition", { apiKey: org.apiKey, body: { name: "Talker", workflow_definition: plainDefinition() } })
        const token = yield* call("POST", `/api/v1/workflow/${agent.body.id}/embed-token`, { apiKey: org.apiKey, body: { allowed_domains: [SITE], settings: { widgetType: "chat" } } })
        const page = { origin: SITE, "x-forwarded-for": "198.51.100.11" }
        const init = yield* call("POST", "/api/v1/public/embed/init", { headers: page, body: { token: token.body.token } })
        const chat = `/api/v1/public/embed/chat/${init.body.session_token}`
        for (let i = 1; i <= VISITOR_MESSAGES.limit; i++) {
          const answered = yield* call("POST", `${chat}/messages`, { headers: page, body: { text: `message ${i}` } })
          expect(answered.status).toBe(200)
          expect(answered.body.turns).toHaveLength(i + 1)
        }
        const throttled = yield* call("POST", `${chat}/messages`, { headers: page, body: { text: "one more" } })
        expect(throttled.status).toBe(429)
        expect(throttled.body.detail).toMatch(/^Too many requests from this visitor; try again in \d+ seconds$/)
        // Nothing was taken: the conversation still has the twenty messages.
        expect((yield* call("GET", chat, { headers: page })).body.turns).toHaveLength(VISITOR_MESSAGES.limit + 1)
        // Counted per visitor (client address): another one on the same session is answered.
        const other = yield* call("POST", `${chat}/messages`, { headers: { ...page, "x-forwarded-for": "203.0.113.40" }, body: { text: "hello" } })
        expect(other.status).toBe(200)
      }))
  })
}
