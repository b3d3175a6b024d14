import { describe, expect, it } from "vitest";
import { declaresParameters, updateConfigurationArgs } from "../flows/location.js";
import {
  AgentRoutes,
  agentRouteUrl,
  allAgentRoutes,
  apiMappingOf,
  assetContentUrl,
  c2ApiRoutes,
  debugBundleUrl,
  flowContentUrl,
  loadBalancerPathPattern,
  matchAgentRoute,
  servedPaths,
  servedRouteKeys,
} from "./routes.js";

describe("matchAgentRoute", () => {
  it("takes each route by its method and path, with its parameters as sent", () => {
    expect(matchAgentRoute("POST", "/c2/api/heartbeat")).toEqual({ name: "heartbeat", params: {} });
    expect(matchAgentRoute("POST", "/c2/api/acknowledge")).toEqual({ name: "acknowledge", params: {} });
    expect(matchAgentRoute("GET", "/c2/api/flows/ab12/content")).toEqual({
      name: "flowContent",
      params: { flowId: "ab12" },
    });
    expect(matchAgentRoute("GET", "/c2/api/agents/pump%201/flows/ab12/content")).toEqual({
      name: "agentFlowContent",
      params: { agentId: "pump%201", flowId: "ab12" },
    });
    expect(matchAgentRoute("GET", "/c2/api/agents/pump%201/rollouts/ro-1/flows/ab12/content")).toEqual({
      name: "agentRolloutFlowContent",
      params: { agentId: "pump%201", rolloutId: "ro-1", flowId: "ab12" },
    });
    expect(matchAgentRoute("GET", "/c2/api/assets/cd34/content")).toEqual({
      name: "assetContent",
      params: { assetId: "cd34" },
    });
    expect(matchAgentRoute("POST", "/c2/debug-bundles/op%2F1")).toEqual({
      name: "debugBundle",
      params: { operationId: "op%2F1" },
    });
  });

  it("takes the heartbeat and the acknowledgement at the incumbent C2 server's paths too, as the same routes", () => {
    expect(matchAgentRoute("POST", "/efm/api/c2-protocol/heartbeat")).toEqual({
      name: "heartbeat",
      params: {},
    });
    expect(matchAgentRoute("POST", "/efm/api/c2-protocol/acknowledge")).toEqual({
      name: "acknowledge",
      params: {},
    });
  });

  it("takes no route for another method, a longer or shorter path, or an empty parameter", () => {
    for (const [method, path] of [
      ["GET", "/c2/api/heartbeat"],
      ["GET", "/efm/api/c2-protocol/heartbeat"],
      ["POST", "/efm/api/c2-protocol/heartbeat/"],
      ["POST", "/efm/api/c2-protocol"],
      ["POST", "/efm/api/heartbeat"],
      ["POST", "/efm/api/c2-protocol/c2/api/heartbeat"],
      ["GET", "/efm/api/c2-protocol/flows/ab12/content"],
      ["POST", "/c2/api/heartbeat/"],
      ["POST", "/c2/api/flows/ab12/content"],
      ["GET", "/c2/api/flows//content"],
      ["GET", "/c2/api/flows/a/b/content"],
      ["POST", "/c2/debug-bundles/"],
      ["POST", "/c2/debug-bundles/op-1/more"],
    ] as const)
      expect(matchAgentRoute(method, path)).toBeUndefined();
  });
});

describe("URLs", () => {
  it("builds each route's URL below a base, with or without its trailing slash, encoding each parameter", () => {
    expect(flowContentUrl("https://agents.test/", "f 1")).toBe(
      "https://agents.test/c2/api/flows/f%201/content",
    );
    expect(assetContentUrl("https://agents.test", "ab12")).toBe(
      "https://agents.test/c2/api/assets/ab12/content",
    );
    expect(debugBundleUrl("https://bundles.test", "op/1")).toBe(
      "https://bundles.test/c2/debug-bundles/op%2F1",
    );
  });

  it("sends an UPDATE CONFIGURATION of a version that declares parameters to the agent's own rendering", () => {
    const recipient = { agentId: "pump 7", renderedFlowId: "c0ffee" };
    expect(updateConfigurationArgs("https://agents.test", "ab12", recipient)).toEqual({
      location: "https://agents.test/c2/api/agents/pump%207/flows/ab12/content",
      flowId: "c0ffee",
      persist: "true",
    });
    expect(
      updateConfigurationArgs("https://agents.test", "ab12", { agentId: recipient.agentId }).location,
    ).toBe(flowContentUrl("https://agents.test", "ab12"));
    expect(declaresParameters({ parameters: [] })).toBe(false);
    expect(declaresParameters({})).toBe(false);
    expect(declaresParameters({ parameters: [{ name: "x", sensitive: false }] })).toBe(true);
  });

  it("spells Beacon's own paths, never the incumbent's", () => {
    expect(agentRouteUrl("https://agents.test", AgentRoutes.heartbeat)).toBe(
      "https://agents.test/c2/api/heartbeat",
    );
  });

  it("matches what it builds", () => {
    const url = new URL(flowContentUrl("https://agents.test", "ab12"));
    expect(matchAgentRoute("GET", url.pathname)).toEqual({ name: "flowContent", params: { flowId: "ab12" } });
  });
});

it("writes the load balancer's patterns with a wildcard for each parameter", () => {
  expect(loadBalancerPathPattern(AgentRoutes.debugBundle.path)).toBe("/c2/debug-bundles/*");
  expect(c2ApiRoutes.map((route) => loadBalancerPathPattern(route.path))).toEqual([
    "/c2/api/heartbeat",
    "/c2/api/acknowledge",
    "/c2/api/flows/*/content",
    "/c2/api/agents/*/flows/*/content",
    "/c2/api/assets/*/content",
    "/c2/api/agents/*/rollouts/*/flows/*/content",
  ]);
  expect(allAgentRoutes).toEqual([...c2ApiRoutes, AgentRoutes.debugBundle]);
});

it("serves every route at Beacon's path, the heartbeat and the acknowledgement at the incumbent's too", () => {
  expect(servedPaths(AgentRoutes.heartbeat)).toEqual(["/c2/api/heartbeat", "/efm/api/c2-protocol/heartbeat"]);
  expect(servedPaths(AgentRoutes.flowContent)).toEqual(["/c2/api/flows/{flowId}/content"]);
  expect(servedRouteKeys([AgentRoutes.acknowledge, AgentRoutes.assetContent])).toEqual([
    { method: "POST", path: "/c2/api/acknowledge" },
    { method: "POST", path: "/efm/api/c2-protocol/acknowledge" },
    { method: "GET", path: "/c2/api/assets/{assetId}/content" },
  ]);
});

it("maps a route below the agent domain at its path up to its first parameter, served at the rest", () => {
  expect(apiMappingOf(AgentRoutes.assetContent)).toEqual({
    mappingKey: "c2/api/assets",
    resourcePath: "/{assetId}/content",
  });
  expect(() => apiMappingOf(AgentRoutes.heartbeat)).toThrow(/no parameter/);
});
