/**
 * The voice runtime as the server's `CallAudioHandler`: per answered call, the run's agent is loaded,
 * this call's services are chosen (the defaults, or the agent's `model_overrides`), the conversation
 * runs as a pipeline of stages (`pipeline/Session.ts`: listener, recognizer, responder, speaker,
 * recorder, turn-taking) and its result is saved on the run (`pipeline/RunSave.ts`). A call whose agent
 * could not talk ends `failed` with the reason in `gathered_context.error`.
 *
 * Timers (`max_call_duration`, `max_user_idle_timeout`, pacing) run on the Clock, so tests drive them
 * with TestClock.
 */
import type { CallAudio, CallAudioHandlerShape } from "@agentline/core/audio/CallAudio"
import { VoiceActivity } from "@agentline/core/audio/VoiceActivity"
import { DoNotCallRepo } from "@agentline/core/do-not-call/DoNotCallRepo"
import { RunsRepo } from "@agentline/core/runs/RunsRepo"
import { ToolCalls } from "@agentline/core/tools/ToolCalls"
import { SpeechToText, TextToSpeech } from "@agentline/core/voice/Speech"
import { validateDefinition } from "@agentline/core/workflows/DefinitionValidation"
import { WorkflowsRepo } from "@agentline/core/workflows/WorkflowsRepo"
import { Cause, Effect, Either, Option, Stream } from "effect"
import { conversationGraph, type ConversationNode } from "../graph/ConversationGraph.js"
import { pipelineError } from "../graph/FeedbackEvents.js"
import { callUsage, RunSave } from "../pipeline/RunSave.js"
import { listedTools } from "../pipeline/Responder.js"
import { runSession } from "../pipeline/Session.js"
import { AgentLanguageModel, SpeechServiceNames } from "./LanguageModelTools.js"
import { hasOverrides, VoiceServiceOverrides } from "./ServiceOverrides.js"
import { type SessionSettings, sessionSettings } from "./SessionSettings.js"

export class VoiceAgent extends Effect.Service<VoiceAgent>()("@agentline/voice/VoiceAgent", {
  effect: Effect.gen(function*() {
    const runs = yield* RunsRepo
    const workflows = yield* WorkflowsRepo
    const stt = yield* SpeechToText
    const tts = yield* TextToSpeech
    const llm = yield* AgentLanguageModel
    const names = yield* SpeechServiceNames
    const overrides = yield* Effect.serviceOption(VoiceServiceOverrides)
    const doNotCall = yield* Effect.serviceOption(DoNotCallRepo)
    const toolCalls = yield* Effect.serviceOption(ToolCalls)
    const voiceActivity = yield* VoiceActivity
    const runSave = yield* RunSave
    const defaults = { stt, tts, llm, names }

    /** The services of a call: the defaults, with what the agent's `model_overrides` chose instead. */
    const servicesFor = (settings: SessionSettings, organizationId: number) =>
      Effect.gen(function*() {
        if (!hasOverrides(settings.overrides)) return { services: defaults, problem: undefined }
        if (Option.isNone(overrides)) {
          return { services: defaults, problem: "model_overrides cannot be used here (no service overrides in this server); the defaults are used" }
        }
        const chosen = yield* Effect.either(overrides.value.resolve(settings.overrides, organizationId))
        if (chosen._tag === "Left") return { services: defaults, problem: `model_overrides: ${chosen.left}; the defaults are used` }
        const o = chosen.right
        return {
          services: {
            stt: o.stt?.service ?? stt,
            tts: o.tts?.service ?? tts,
            llm: o.llm ?? llm,
            names: { stt: o.stt?.name ?? names.stt, tts: o.tts?.name ?? names.tts }
          },
          problem: undefined
        }
      })

    /** The run's agent version as a graph, its configuration and the contact's variables. */
    const load = Effect.fn("VoiceAgent.load")(function*(audio: CallAudio) {
      const run = yield* runs.findById(audio.runId)
      if (Option.isNone(run)) return Either.left("the call's run no longer exists")
      const versions = yield* workflows.versions(run.value.organization_id, run.value.workflow_id)
      const version = versions.find((v) => v.id === run.value.definition_id) ?? versions.at(-1)
      if (version === undefined) return Either.left("the call's agent has no version")
      const { definition, errors } = validateDefinition(version.workflow_definition)
      if (errors.length > 0) return Either.left(`the agent's definition cannot be run: ${errors[0]!.message}`)
      const graph = conversationGraph(definition)
      if (Either.isLeft(graph)) return Either.left(graph.left.message)
      return Either.right({
        run: run.value,
        graph: graph.right,
        settings: sessionSettings(version.workflow_configurations),
        initialContext: run.value.initial_context ?? {}
      })
    })

    const converse = Effect.fn("VoiceAgent.converse")(function*(
      audio: CallAudio,
      call: Extract<Effect.Effect.Success<ReturnType<typeof load>>, { _tag: "Right" }>["right"]
    ) {
      const organizationId = call.run.organization_id
      const chosen = yield* servicesFor(call.settings, organizationId)
      if (chosen.problem !== undefined) yield* Effect.logWarning(chosen.problem)
      const { llm: model, names: serviceNames } = chosen.services
      const nodeTools = Option.match(toolCalls, {
        onNone: () => undefined,
        onSome: (calls) => (node: ConversationNode) => {
          const listed = listedTools(node)
          return calls.forNode(organizationId, listed.uuids, listed.mcpFilters)
        }
      })
      const result = yield* runSession(audio, { ...call, run: call.run }, {
        stt: chosen.services.stt,
        tts: chosen.services.tts,
        model,
        detector: yield* voiceActivity.detector(audio.sampleRate),
        playable: runSave.recordingLoader(organizationId),
        optOut: doNotCall,
        ...(nodeTools !== undefined ? { nodeTools } : {})
      }, chosen.problem !== undefined ? [pipelineError(chosen.problem, false)] : [])
      const usage = callUsage(result, { llm: Option.isSome(model) ? model.value.name : undefined, ...serviceNames })
      yield* runSave.save(audio.runId, organizationId, result, usage, voiceActivity.name)
    })

    const handle = (audio: CallAudio) =>
      Effect.scoped(Effect.gen(function*() {
        const loaded = yield* load(audio)
        if (Either.isLeft(loaded)) {
          yield* Effect.logWarning(`Voice runtime: ${loaded.left}; the line stays silent`)
          yield* runSave.noteError(audio.runId, loaded.left)
          return yield* Stream.runDrain(audio.incoming)
        }
        yield* converse(audio, loaded.right)
      }).pipe(
        Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? Effect.interrupt : Effect.logError("Voice runtime failed", cause)),
        Effect.annotateLogs({ runId: audio.runId, attemptId: audio.attemptId })
      ))

    return { handle } satisfies CallAudioHandlerShape
  }),
  dependencies: [RunSave.Default]
}) {}
