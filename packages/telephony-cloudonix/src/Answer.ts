/**
 * CXML documents (pure). CXML is Cloudonix's dialect of TwiML: the answer documents are Twilio's
 * (`<Connect><Stream>` for the media stream, `<Reject reason="busy">`, `<Say>` then `<Hangup/>`).
 *
 * Cloudonix takes an outbound call's CXML with the request that places it, before the callee answers;
 * the media stream's single-use URL is only made when the call is answered. So the document placed
 * with the call redirects to our answer URL, which Cloudonix requests once the callee picks up.
 */
import { Twilio } from "@agentline/telephony-twilio"

export const answer = Twilio.Answer.answer

/** The document a call is placed with: fetch the real one from `answerUrl` once answered. */
export const redirectTo = (answerUrl: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Redirect method="POST">${Twilio.Answer.escapeXml(answerUrl)}</Redirect></Response>`
