import { describe, expect, it } from "vitest";
import { isSecretKey, REDACTED, redactSecrets } from "./redaction.js";

describe("secret-looking keys", () => {
  it("are those naming a password, a secret, a token, a credential or key material, however spelled", () => {
    for (const key of [
      "nifi.security.client.pass.phrase",
      "Password",
      "db_pwd",
      "nifi.sensitive.props.secret",
      "nifi.c2.rest.api.token",
      "oauth.access.token",
      "aws.credentials.file",
      "nifi.security.client.private.key",
      "PrivateKey",
      "x-api-key",
      "s3.access-key",
      "jwt signing key",
      "kafka.sessionKey",
    ])
      expect(isSecretKey(key), key).toBe(true);
  });

  it("are not the ordinary properties, metrics and state an operator reads", () => {
    for (const key of [
      "nifi.c2.rest.url",
      "nifi.c2.agent.heartbeat.period",
      "nifi.security.client.certificate",
      "nifi.flowfile.repository.directory.default",
      "file.position",
      "queuedmax",
      "keyspace",
      "primary.key.column",
    ])
      expect(isSecretKey(key), key).toBe(false);
  });
});

describe("redactSecrets", () => {
  it("replaces a secret-looking key's value, whole and whatever its type, at any depth, and keeps the rest as it was", () => {
    const answer = {
      operationId: "op-1",
      configuration_options: {
        "nifi.c2.rest.url": "https://agents.beacon.test:8443/c2/api/heartbeat",
        "nifi.c2.rest.api.token": "eyJhbGciOi",
      },
      corecomponentstate: {
        "4fe2d51d-076a-49b0-88de-5cf5adf52b8f": { "oauth.access.token": "ya29", "last.run": "1732480000" },
      },
      nested: [{ credentials: { user: "u", key: "k" } }, "plain", 3, null],
    };
    const before = structuredClone(answer);
    expect(redactSecrets(answer)).toEqual({
      operationId: "op-1",
      configuration_options: {
        "nifi.c2.rest.url": "https://agents.beacon.test:8443/c2/api/heartbeat",
        "nifi.c2.rest.api.token": REDACTED,
      },
      corecomponentstate: {
        "4fe2d51d-076a-49b0-88de-5cf5adf52b8f": { "oauth.access.token": REDACTED, "last.run": "1732480000" },
      },
      nested: [{ credentials: REDACTED }, "plain", 3, null],
    });
    expect(answer).toEqual(before);
  });

  it("redacts the value of a name–value pair whose name looks secret, as property lists carry them", () => {
    expect(
      redactSecrets([
        { name: "nifi.security.client.private.key", value: "/opt/minifi/conf/agent.key" },
        { name: "nifi.c2.enable", value: "true" },
        { propertyName: "c2.security.truststore.password", propertyValue: "changeit" },
      ]),
    ).toEqual([
      { name: "nifi.security.client.private.key", value: REDACTED },
      { name: "nifi.c2.enable", value: "true" },
      { propertyName: "c2.security.truststore.password", propertyValue: REDACTED },
    ]);
  });
});
