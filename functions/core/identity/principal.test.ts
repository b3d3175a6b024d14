import { describe, expect, it } from "vitest";
import { classesOfClaim, principalFromClaims, reachesClass } from "./principal.js";

const claims = { "custom:tenant": "acme", "custom:role": "operator", sub: "user-1" };

describe("the classes claim", () => {
  it("is absent for a principal of the whole tenant", () => {
    const principal = principalFromClaims(claims);
    expect(principal.classes).toBeUndefined();
    expect(reachesClass(principal, "pumps")).toBe(true);
    expect(reachesClass(principal, undefined)).toBe(true);
  });

  it.each([
    ["a Cognito attribute's names separated by commas", "pumps,valves", ["pumps", "valves"]],
    ["one name", "pumps", ["pumps"]],
    ["an OIDC provider's array", ["pumps", "valves"], ["pumps", "valves"]],
    ["an array as API Gateway's authorizer renders it", "[pumps valves]", ["pumps", "valves"]],
    ["a name twice, once", "pumps,pumps", ["pumps"]],
  ])("reads %s", (_label, claim, classes) => {
    expect(principalFromClaims({ ...claims, "custom:classes": claim })).toEqual({
      tenant: "acme",
      role: "operator",
      subject: "user-1",
      classes,
    });
  });

  it.each([
    ["an empty string", ""],
    ["an empty array", []],
    ["an empty array as API Gateway renders it", "[]"],
  ])("limits a principal given %s to no class at all", (_label, claim) => {
    const principal = principalFromClaims({ ...claims, "custom:classes": claim });
    expect(principal.classes).toEqual([]);
    expect(reachesClass(principal, "pumps")).toBe(false);
  });

  it("keeps a limited principal from the named classes' neighbours and from agents of no class", () => {
    const principal = principalFromClaims({ ...claims, "custom:classes": "pumps" });
    expect(reachesClass(principal, "pumps")).toBe(true);
    expect(reachesClass(principal, "valves")).toBe(false);
    expect(reachesClass(principal, undefined)).toBe(false);
  });

  it.each([
    ["an empty name between commas", "pumps,,valves"],
    ["a space after a comma", "pumps, valves"],
    ["a JSON list in the string", '["pumps"]'],
    ["a name no class may have", "pumps,a/b"],
    ["a number", 7],
    ["null", null],
    ["an object", { pumps: true }],
    ["an array holding a non-string", ["pumps", 7]],
    ["an array holding an empty name", ["pumps", ""]],
  ])("refuses %s as unauthenticated, never as the whole tenant", (_label, claim) => {
    expect(classesOfClaim(claim)).toBeUndefined();
    expect(() => principalFromClaims({ ...claims, "custom:classes": claim })).toThrow(
      expect.objectContaining({ code: "unauthenticated" }),
    );
  });
});
