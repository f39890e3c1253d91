/**
 * Conference rooms of the fake Twilio (`<Dial><Conference>`), as Twilio runs them: a room is made by its
 * first participant and named per account; it starts when a participant with `startConferenceOnEnter`
 * joins (those before wait on hold music, Twilio's default `waitUrl`); it ends when a participant with
 * `endConferenceOnExit` leaves, or the last one does, and every participant's `<Dial>` is then over.
 * A name can be used again once its room ended.
 */

interface Member {
  readonly endOnExit: boolean
  readonly left: () => void
}

interface Room {
  readonly members: Map<string, Member>
  started: boolean
  ended: boolean
}

/** One participant's place in a room. */
export interface Membership {
  /** Whether the room had started when the call joined (else it waited on hold music). */
  readonly startedOnJoin: boolean
  /** Resolves when the call is out of the room (it ended, or the call left). */
  readonly out: Promise<void>
  /** The call leaves (hung up, or redirected to another document). */
  readonly leave: () => void
}

export interface RoomEvent {
  readonly room: string
  readonly callSid: string
  readonly event: "join" | "start" | "leave" | "end"
}

export class FakeConferences {
  private readonly rooms = new Map<string, Room>()
  /** What happened in the rooms, in order. */
  readonly events: Array<RoomEvent> = []

  join(
    account: string,
    name: string,
    callSid: string,
    options: { readonly startOnEnter: boolean; readonly endOnExit: boolean }
  ): Membership {
    const key = `${account}/${name}`
    let room = this.rooms.get(key)
    if (room === undefined || room.ended) {
      room = { members: new Map(), started: false, ended: false }
      this.rooms.set(key, room)
    }
    const startedOnJoin = room.started
    let resolve: () => void = () => {}
    const out = new Promise<void>((r) => (resolve = r))
    room.members.set(callSid, { endOnExit: options.endOnExit, left: resolve })
    this.events.push({ room: name, callSid, event: "join" })
    if (options.startOnEnter && !room.started) {
      room.started = true
      this.events.push({ room: name, callSid, event: "start" })
    }
    const current = room
    return {
      startedOnJoin,
      out,
      leave: () => {
        const member = current.members.get(callSid)
        if (member === undefined) return
        current.members.delete(callSid)
        this.events.push({ room: name, callSid, event: "leave" })
        member.left()
        if (member.endOnExit || current.members.size === 0) this.end(name, current)
      }
    }
  }

  private end(name: string, room: Room) {
    if (room.ended) return
    room.ended = true
    this.events.push({ room: name, callSid: "", event: "end" })
    for (const [sid, member] of room.members) {
      room.members.delete(sid)
      member.left()
    }
  }
}
