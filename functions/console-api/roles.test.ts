import { describe, expect, it } from "vitest";
import { consoleHarness } from "../../scripts/test-support/console-harness.js";
import { isBeaconError } from "../core/errors.js";
import { type Principal, type Role, Roles } from "../core/identity/principal.js";
import { consoleOperations } from "../shared/console-openapi.js";
import { consoleRoutes } from "./routes.js";

/**
 * Core's use cases are the rule of who may do what: each checks its caller's role first. The OpenAPI document
 * states each operation's least role (`x-beacon-role`) for clients, the web console and the handler, which
 * refuses a caller below it before reading the request. This holds the two to one answer: every use case
 * refuses the role just below the document's, and lets the document's role through.
 */
async function refusal(call: () => Promise<unknown>): Promise<string | undefined> {
  try {
    await call();
    return undefined;
  } catch (error) {
    // Past the role check the empty request fails as it may (a missing agent, a body it needs).
    return isBeaconError(error) && error.code === "forbidden" ? "forbidden" : undefined;
  }
}

describe("each console operation's least role", () => {
  const routes = consoleRoutes(consoleHarness().api);
  const as = (role: Role): Principal => ({ tenant: "acme", role, subject: `acme-${role}` });
  const emptyInput = { path: {}, query: {}, body: {} };

  it.each(consoleOperations.map((operation) => [operation.operationId, operation.role] as const))(
    "%s: the document's %s is the use case's",
    async (operationId, role) => {
      const route = routes[operationId];
      if (!route) throw new Error(`No use case for ${operationId}`);
      const below = Roles[Roles.indexOf(role) - 1];
      if (below) expect(await refusal(() => route(as(below), emptyInput))).toBe("forbidden");
      expect(await refusal(() => route(as(role), emptyInput))).toBeUndefined();
    },
  );
});
