import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { isPrivateAddress, refusedTarget, refusedTargetTemplate } from "../src/OutboundTargets.js"

describe("private addresses", () => {
  it.each([
    "127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.5.4", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
    "::1", "::", "fe80::1", "fd00::1", "fc12::3", "::ffff:127.0.0.1", "::ffff:10.1.1.1", "[::1]", "224.0.0.1", "64:ff9b::a00:1"
  ])("%s is private", (address) => expect(isPrivateAddress(address)).toBe(true))

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "192.169.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "example.com"])(
    "%s is not",
    (address) => expect(isPrivateAddress(address)).toBe(false)
  )

  it("every address in 10/8, 127/8 and 192.168/16 is private; none in 11/8", () => {
    const octet = FastCheck.integer({ min: 0, max: 255 })
    FastCheck.assert(FastCheck.property(octet, octet, octet, (a, b, c) => {
      expect(isPrivateAddress(`10.${a}.${b}.${c}`)).toBe(true)
      expect(isPrivateAddress(`127.${a}.${b}.${c}`)).toBe(true)
      expect(isPrivateAddress(`192.168.${b}.${c}`)).toBe(true)
      expect(isPrivateAddress(`11.${a}.${b}.${c}`)).toBe(false)
    }))
  })

  it("targets: http(s) only; loopback names and private IPs refused unless allowed", () => {
    expect(refusedTarget("https://hooks.example.com/x", false)).toBeUndefined()
    expect(refusedTarget("ftp://hooks.example.com/x", false)).toContain("http or https")
    expect(refusedTarget("http://localhost:8080/", false)).toContain("loopback")
    expect(refusedTarget("http://api.localhost/", false)).toContain("loopback")
    expect(refusedTarget("http://[::1]:80/", false)).toContain("private")
    expect(refusedTarget("http://10.0.0.7/", true)).toBeUndefined()
    expect(refusedTarget("not a url", true)).toContain("absolute")
  })

  it("a host is compared as DNS resolves it: case and trailing dots do not hide a loopback name", () => {
    for (const url of ["http://LOCALHOST./", "http://localhost../x", "http://Api.LocalHost./", "http://127.0.0.1./"]) {
      expect(refusedTarget(url, false), url).toBeDefined()
    }
    expect(refusedTarget("https://hooks.example.com./x", false)).toBeUndefined()
  })

  it("templates: checked when the scheme and host are written out, left to the send otherwise", () => {
    expect(refusedTargetTemplate("http://127.0.0.1/runs/{{workflow_run_id}}", false)).toContain("private")
    expect(refusedTargetTemplate("ftp://files.example.com/{{x}}", false)).toContain("http or https")
    expect(refusedTargetTemplate("https://crm.example.com/runs/{{workflow_run_id}}?q={{a.b}}", false)).toBeUndefined()
    expect(refusedTargetTemplate("https://{{initial_context.host}}/runs", false)).toBeUndefined()
    expect(refusedTargetTemplate("{{initial_context.url}}", false)).toBeUndefined()
    expect(refusedTargetTemplate("  ", false)).toBeUndefined()
    expect(refusedTargetTemplate("http://10.0.0.1/", true)).toBeUndefined()
  })
})
