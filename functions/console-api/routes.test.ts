import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ConsoleUseCases } from "../core/console/use-cases.js";
import { BeaconError } from "../core/errors.js";
import { NotificationFamilies, NotificationTypes } from "../core/webhooks/notification-types.js";
import {
  consoleOperations,
  inputValidatorOf,
  openApiDocument,
  operationFor,
} from "../shared/console-openapi.js";
import { errorResponse } from "../shared/http.js";
import { consoleRoutes } from "./routes.js";

describe("the console's OpenAPI document", () => {
  it("has a use case for every operation and an operation for every use case", () => {
    const routes = Object.keys(consoleRoutes({} as ConsoleUseCases)).sort();
    expect(consoleOperations.map((operation) => operation.operationId).sort()).toEqual(routes);
  });

  it("keeps every route under /api/v1, each with the least role it needs", () => {
    for (const operation of consoleOperations) {
      expect(operation.path.startsWith("/api/v1/")).toBe(true);
      expect(["viewer", "operator", "admin"]).toContain(operation.role);
    }
    expect(consoleOperations).toHaveLength(97);
  });

  it("describes Beacon's error body for every failure the handler answers", async () => {
    const operation = operationFor("GET /api/v1/agents/{agentId}");
    for (const code of ["not_found", "forbidden", "invalid_request"] as const) {
      const response = errorResponse(new BeaconError(code, "x"));
      await expect(
        operation.assertResponse(response.statusCode, JSON.parse(response.body)),
      ).resolves.toBeUndefined();
    }
    await expect(operation.assertResponse(200, { agentId: "a", tenant: "leak" })).rejects.toThrow(
      /answered 200/,
    );
  });

  it("has the validators of every operation's parameters, body and answers in modules of the operation's own", async () => {
    const unauthenticated = JSON.parse(errorResponse(new BeaconError("unauthenticated", "x")).body);
    for (const operation of consoleOperations) {
      await expect(inputValidatorOf(operation.operationId), operation.operationId).resolves.toBeTypeOf(
        "function",
      );
      await expect(
        operation.assertResponse(401, unauthenticated),
        operation.operationId,
      ).resolves.toBeUndefined();
    }
    // Each of the 194 modules is imported and transformed here: seconds beside other work, past the 5 s default.
  }, 120_000);

  it("converts and bounds parameters as it declares them", async () => {
    const list = operationFor("GET /api/v1/agents");
    const event = (query: Record<string, string | undefined>) =>
      ({ queryStringParameters: query, isBase64Encoded: false }) as never;
    const limits = { maxInflatedBytes: 1024, maxJsonDepth: 8, maxDocumentBytes: 1024 };
    expect((await list.parse(event({ limit: "100", status: "online" }), limits)).query).toEqual({
      limit: 100,
      status: "online",
    });
    for (const query of [
      { limit: "101" },
      { status: "asleep" },
      { tenant: "other" },
      { lastSeenAfter: "yesterday" },
    ]) {
      await expect(list.parse(event(query), limits)).rejects.toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
    }
    expect(() => operationFor("GET /c2/api/heartbeat")).toThrow(
      expect.objectContaining({ code: "route_not_found" }),
    );
  });

  it("needs a body where the document requires one, and takes a request without one where the body is optional", async () => {
    const limits = { maxInflatedBytes: 1024, maxJsonDepth: 8, maxDocumentBytes: 1024 };
    const event = (path: Record<string, string>, body?: string) =>
      ({ pathParameters: path, body, isBase64Encoded: false }) as never;
    const revoke = operationFor("POST /api/v1/certificates/{serial}/revoke");
    expect((await revoke.parse(event({ serial: "1A" }), limits)).body).toBeUndefined();
    expect((await revoke.parse(event({ serial: "1A" }, '{"reason":"superseded"}'), limits)).body).toEqual({
      reason: "superseded",
    });
    await expect(revoke.parse(event({ serial: "1A" }, '{"reason":"lost"}'), limits)).rejects.toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
    const putClass = operationFor("PUT /api/v1/classes/{className}");
    await expect(putClass.parse(event({ className: "pumps" }), limits)).rejects.toThrow(
      "The request needs a JSON body",
    );
  });

  it("names, in its flow and rollout examples, the hash of its upload example sent as compact JSON", () => {
    const { paths, components } = openApiDocument;
    const upload = paths["/api/v1/classes/{className}/flows"].post.requestBody.content["application/json"];
    const hash = createHash("sha256").update(JSON.stringify(upload.example)).digest("hex");
    expect(components.parameters.FlowHash.example).toBe(hash);
    const rollout = paths["/api/v1/rollouts"].post.requestBody.content["application/json"].example;
    expect(rollout).toMatchObject({ className: components.parameters.FlowClassName.example, flowHash: hash });
  });

  it("takes a rollout plan's shares as exactly one of a count or a percent, within bounds", async () => {
    const start = operationFor("POST /api/v1/rollouts");
    const limits = { maxInflatedBytes: 4096, maxJsonDepth: 8, maxDocumentBytes: 1024 };
    const request = (plan: unknown) => ({ className: "pumps", flowHash: "a".repeat(64), plan });
    const event = (body: unknown) => ({ body: JSON.stringify(body), isBase64Encoded: false }) as never;
    const plan = { canary: { count: 2 }, failureThreshold: { percent: 2.5 }, onFailure: "pause" };
    expect((await start.parse(event(request(plan)), limits)).body).toEqual(request(plan));
    for (const bad of [
      { canary: {} },
      { canary: { count: 2, percent: 5 } },
      { canary: { count: 0 } },
      { canary: { percent: 0 } },
      { failureThreshold: { percent: 5e-324 } },
      { failureThreshold: { percent: 100.5 } },
      { batchSize: 1001 },
      { soakSeconds: -1 },
      { onFailure: "ignore" },
      { pace: "fast" },
    ]) {
      await expect(start.parse(event(request(bad)), limits)).rejects.toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
    }
  });

  it("names the notification types core knows, and their families, for subscriptions", () => {
    expect(openApiDocument.components.schemas.NotificationTypePattern.enum).toEqual([
      ...NotificationTypes,
      ...NotificationFamilies,
    ]);
  });

  it("is served as is", () => {
    expect((openApiDocument as { openapi: string }).openapi).toBe("3.1.0");
  });
});
