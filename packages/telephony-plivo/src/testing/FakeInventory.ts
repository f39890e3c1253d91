/**
 * The fake carrier's applications and numbers: list/create/update applications, link numbers to them
 * (Plivo `POST Number/{n}/ {app_id}`, Vobiz `POST|DELETE numbers/{+n}/application {application_id}`).
 */
import type { Account, DialectFake } from "./FakeCarrier.js"
import { digits, httpUrl, json, notFound } from "./FakeHttp.js"

export interface Application {
  readonly appId: string
  readonly authId: string
  appName: string
  answerUrl: string
  hangupUrl: string | undefined
}

export const make = (
  fake: DialectFake,
  state: {
    readonly applications: Map<string, Application>
    readonly links: Map<string, string | undefined>
    readonly owners: ReadonlyMap<string, string>
  }
) => {
  const { applications, links, owners } = state
  const { dialect } = fake
  const applicationsApi = (account: Account, method: string, id: string | undefined, query: URLSearchParams, body: Record<string, unknown>) => {
    const mine = [...applications.values()].filter((a) => a.authId === account.authId)
    if (id === undefined && method === "GET") {
      const limit = Math.min(20, Number(query.get("limit") ?? "20"))
      const offset = Number(query.get("offset") ?? "0")
      const page = mine.slice(offset, offset + limit)
      return json(200, {
        meta: { limit, offset, total_count: mine.length, next: offset + limit < mine.length ? `?limit=${limit}&offset=${offset + limit}` : null },
        objects: page.map((a) => ({ app_id: a.appId, app_name: a.appName, answer_url: a.answerUrl, hangup_url: a.hangupUrl ?? a.answerUrl }))
      })
    }
    if (id === undefined && method === "POST") {
      if (typeof body.app_name !== "string" || !httpUrl(body.answer_url)) return json(400, { error: "app_name and answer_url must be present" })
      const app: Application = { appId: String(Date.now()) + String(applications.size), authId: account.authId, appName: body.app_name, answerUrl: body.answer_url as string, hangupUrl: undefined }
      applications.set(app.appId, app)
      return json(201, { message: "created", app_id: app.appId })
    }
    const app = id === undefined ? undefined : mine.find((a) => a.appId === id)
    if (app === undefined) return notFound()
    if (method === "GET") return json(200, { app_id: app.appId, app_name: app.appName, answer_url: app.answerUrl })
    if (method === "POST") {
      if (body.answer_url !== undefined && !httpUrl(body.answer_url)) return json(400, { error: "answer_url is not a valid URL" })
      if (typeof body.answer_url === "string") app.answerUrl = body.answer_url
      if (typeof body.hangup_url === "string") app.hangupUrl = body.hangup_url
      return json(202, { message: "changed" })
    }
    return json(405, { error: "method not allowed" })
  }

  const numbersApi = (account: Account, method: string, path: ReadonlyArray<string | undefined>, body: Record<string, unknown>) => {
    const joined = path.filter((p) => p !== undefined).join("/")
    const match = joined.match(fake.linkPath)
    if (match === null) return notFound()
    const number = `+${digits(decodeURIComponent(match[1]!))}`
    if (owners.get(digits(number)) !== account.authId) return notFound()
    if (method === "DELETE") {
      links.set(number, undefined)
      return json(200, { message: "Number detached from application", number })
    }
    if (method !== "POST") return json(405, { error: "method not allowed" })
    const appId = body.app_id ?? body.application_id
    // Plivo: without app_id the number gets the account's default number application (none here).
    if (appId === undefined && dialect.numberLink === "plivo") {
      links.set(number, undefined)
      return json(202, { message: "changed" })
    }
    if (typeof appId !== "string" || applications.get(appId)?.authId !== account.authId) return json(404, { error: "application not found" })
    links.set(number, appId)
    return json(dialect.numberLink === "plivo" ? 202 : 200, { message: "changed", number, application_id: appId })
  }

  return { applications: applicationsApi, numbers: numbersApi }
}
