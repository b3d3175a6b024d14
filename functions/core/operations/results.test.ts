import { describe, expect, it } from "vitest";
import { cppDescribeAckOf, example } from "../../../scripts/common/c2-examples.js";
import type { JsonObject } from "../json.js";
import type { OperationRecord } from "./model.js";
import { REDACTED } from "./redaction.js";
import { describeAnswerOf } from "./results.js";

const operation = (operation: string, operand?: string): OperationRecord => ({
  tenant: "acme",
  agentId: "cpp-1",
  operationId: "op-1",
  operation,
  operand,
  state: "delivered",
  createdAt: 0,
  createdBy: "tester",
});

describe("the answer a DESCRIBE's acknowledgement brings", () => {
  it("is the C++ agent's acknowledgement as it sent it, its secret-looking values redacted", () => {
    const ack = cppDescribeAckOf("cpp-1", "op-1", "CONFIGURATION");
    const answer = describeAnswerOf(operation("DESCRIBE", "CONFIGURATION"), ack) as JsonObject;
    const options = answer.configuration_options as JsonObject;
    expect(options["nifi.c2.rest.url"]).toBe("https://agents.beacon.test:8443/c2/api/heartbeat");
    expect(options["nifi.c2.rest.api.token"]).toBe(REDACTED);
    expect(options["nifi.security.client.private.key"]).toBe(REDACTED);
    expect(answer).toMatchObject({
      operation: "acknowledge",
      operationId: "op-1",
      identifier: ack.identifier,
    });
    expect(JSON.stringify(answer)).not.toContain("eyJhbGciOiJIUzI1NiJ9");

    const state = describeAnswerOf(
      operation("DESCRIBE", "CORECOMPONENTSTATE"),
      cppDescribeAckOf("cpp-1", "op-1", "CORECOMPONENTSTATE"),
    ) as JsonObject;
    expect(state.corecomponentstate).toEqual({
      "5128e3c8-015a-1000-79ca-83af40ec1990": { "file.position": "1048576", "file.name": "app.log" },
      "4fe2d51d-076a-49b0-88de-5cf5adf52b8f": { "oauth.access.token": REDACTED, "last.run": "1732480000" },
    });
    for (const operand of ["METRICS", "JSTACK"] as const) {
      const ack = cppDescribeAckOf("cpp-1", "op-1", operand);
      expect(describeAnswerOf(operation("DESCRIBE", operand), ack)).toEqual(
        Object.fromEntries(Object.entries(ack).filter(([key]) => key !== "agentInfo")),
      );
    }
  });

  it("leaves out a DESCRIBE MANIFEST's manifest (Beacon keeps it in its catalog) and keeps what comes with it", () => {
    const java = example("java-2.3.0/ack-describe-manifest.json");
    const answer = describeAnswerOf(operation("DESCRIBE", "MANIFEST"), java) as JsonObject;
    expect(answer).not.toHaveProperty("agentInfo");
    expect(Object.keys(answer)).toEqual(expect.arrayContaining(["deviceInfo", "flowInfo", "resourceInfo"]));
  });

  it("is nothing for another operation, nor for an acknowledgement that carries nothing beyond what it acknowledges", () => {
    const ack = cppDescribeAckOf("cpp-1", "op-1", "CONFIGURATION");
    expect(describeAnswerOf(operation("UPDATE", "PROPERTIES"), ack)).toBeUndefined();
    expect(describeAnswerOf(operation("CLEAR", "CORECOMPONENTSTATE"), ack)).toBeUndefined();
    const bare = {
      operation: "acknowledge",
      operationId: "op-1",
      identifier: "x",
      operationState: { state: "FULLY_APPLIED", details: "" },
      agentInfo: { identifier: "cpp-1" },
    };
    expect(describeAnswerOf(operation("DESCRIBE", "CORECOMPONENTSTATE"), bare)).toBeUndefined();
    // The C++ example's DESCRIBE MANIFEST acknowledgement brings the manifest and nothing else.
    expect(
      describeAnswerOf(operation("DESCRIBE", "MANIFEST"), example("cpp/ack-describe-manifest.json")),
    ).toBeUndefined();
  });
});
