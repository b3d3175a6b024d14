import { X509Certificate } from "node:crypto";
import type { ALBEvent, APIGatewayProxyEventV2 } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { createCertificateAuthority, issueWithCa } from "../adapters/x509/issuer.js";
import { credentialFromCertificate } from "../core/identity/credentials.js";
import { agentRequestOf, agentResult } from "./agent-request.js";
import { jsonResponse } from "./http.js";

const certificatePem = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUJ3\n-----END CERTIFICATE-----\n";

/** An ALB Lambda target event as ALB sends it with mutual TLS in verify mode. */
const albEvent = (multiValue: boolean): ALBEvent => {
  const headers: Record<string, string> = {
    accept: "*/*",
    "content-type": "application/json; charset=utf-8",
    "content-encoding": "gzip",
    host: "agents.example.com",
    "user-agent": "okhttp/4.12.0",
    "x-amzn-trace-id": "Root=1-6720c0a5-1b2f3e4d5c6b7a8901234567",
    "x-forwarded-for": "198.51.100.7",
    "x-forwarded-port": "443",
    "x-forwarded-proto": "https",
    "x-amzn-mtls-clientcert-serial-number": "3A5F1C0B2E44",
    "x-amzn-mtls-clientcert-issuer": "CN=Beacon Agent CA,O=Beacon",
    "x-amzn-mtls-clientcert-subject": "CN=probe-agent-1,OU=agent,O=acme",
    "x-amzn-mtls-clientcert-validity": "NotBefore=2026-01-01T00:00:00Z;NotAfter=2027-01-01T00:00:00Z",
    "x-amzn-mtls-clientcert-leaf": encodeURIComponent(certificatePem),
  };
  return {
    requestContext: {
      elb: {
        targetGroupArn:
          "arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/beacon-agents/6d0ecf831eec9f09",
      },
    },
    httpMethod: "POST",
    path: "/c2/api/heartbeat",
    ...(multiValue
      ? {
          multiValueQueryStringParameters: {},
          multiValueHeaders: Object.fromEntries(
            Object.entries(headers).map(([name, value]) => [name, [value]]),
          ),
        }
      : { queryStringParameters: {}, headers }),
    body: "H4sIAAAAAAAA/6tWKk5NLkpVsqpWSi0qyi9SslIqS8wpTVWqBQBTsIcmGgAAAA==",
    isBase64Encoded: true,
  };
};

const httpApiEvent: APIGatewayProxyEventV2 = {
  version: "2.0",
  routeKey: "POST /c2/api/heartbeat",
  rawPath: "/c2/api/heartbeat",
  rawQueryString: "",
  headers: { "content-type": "application/json", host: "agents.example.com" },
  requestContext: {
    accountId: "123456789012",
    apiId: "a1b2c3d4e5",
    domainName: "agents.example.com",
    domainPrefix: "agents",
    http: {
      method: "POST",
      path: "/c2/api/heartbeat",
      protocol: "HTTP/1.1",
      sourceIp: "198.51.100.7",
      userAgent: "minifi",
    },
    requestId: "JKJaXmPLvHcESHA=",
    routeKey: "POST /c2/api/heartbeat",
    stage: "$default",
    time: "21/Nov/2026:19:43:00 +0000",
    timeEpoch: 1795290180000,
    authentication: {
      clientCert: {
        clientCertPem: certificatePem,
        subjectDN: "CN=probe-agent-1,OU=agent,O=acme",
        issuerDN: "CN=Beacon Agent CA,O=Beacon",
        serialNumber: "3A5F1C0B2E44",
        validity: { notBefore: "Jan  1 00:00:00 2026 GMT", notAfter: "Jan  1 00:00:00 2027 GMT" },
      },
    },
  } as APIGatewayProxyEventV2["requestContext"],
  body: "{}",
  isBase64Encoded: false,
};

describe("agentRequestOf", () => {
  it.each([false, true])(
    "reads an ALB event (multi-value headers: %s) with the same identity rules",
    (multiValue) => {
      const request = agentRequestOf(albEvent(multiValue));
      expect(request).toMatchObject({
        method: "POST",
        path: "/c2/api/heartbeat",
        body: Buffer.from("H4sIAAAAAAAA/6tWKk5NLkpVsqpWSi0qyi9SslIqS8wpTVWqBQBTsIcmGgAAAA==", "base64"),
      });
      expect(request.headers["content-encoding"]).toBe("gzip");
      const certificate = request.clientCertificate;
      expect(certificate).toBeDefined();
      expect(
        credentialFromCertificate(certificate?.subjectDN ?? "", certificate?.serialNumber ?? ""),
      ).toEqual(
        credentialFromCertificate(
          httpApiEvent.requestContext.authentication?.clientCert.subjectDN ?? "",
          httpApiEvent.requestContext.authentication?.clientCert.serialNumber ?? "",
        ),
      );
    },
  );

  it("reads an HTTP API event's client certificate", () => {
    expect(agentRequestOf(httpApiEvent).clientCertificate).toEqual({
      subjectDN: "CN=probe-agent-1,OU=agent,O=acme",
      serialNumber: "3A5F1C0B2E44",
      issuerDN: "CN=Beacon Agent CA,O=Beacon",
    });
  });

  it("takes serial and issuer from the certificate itself when the ingress passed one, whatever its own fields say", async () => {
    const ca = await createCertificateAuthority("Acme Devices CA");
    const { certPem } = await issueWithCa(ca, {
      subject: { commonName: "probe-agent-1", organizationalUnit: "agent", organization: "acme" },
      usage: "clientAuth",
    });
    const serial = new X509Certificate(certPem).serialNumber;
    const http = structuredClone(httpApiEvent);
    Object.assign(http.requestContext.authentication?.clientCert ?? {}, { clientCertPem: certPem });
    const alb = albEvent(false);
    Object.assign(alb.headers ?? {}, { "x-amzn-mtls-clientcert-leaf": encodeURIComponent(certPem) });
    for (const event of [http, alb]) {
      expect(agentRequestOf(event).clientCertificate).toEqual({
        subjectDN: "CN=probe-agent-1,OU=agent,O=acme",
        serialNumber: serial,
        issuerDN: "CN=Acme Devices CA,O=Beacon",
        pem: certPem,
      });
    }
  });

  it("has no certificate when the ALB sends none", () => {
    const event = albEvent(false);
    delete event.headers?.["x-amzn-mtls-clientcert-subject"];
    expect(agentRequestOf(event).clientCertificate).toBeUndefined();
  });
});

describe("agentResult", () => {
  it("answers an ALB in its own shape, single- or multi-value", () => {
    const response = jsonResponse(200, { requestedOperations: [] });
    expect(agentResult(albEvent(false), response)).toMatchObject({
      statusCode: 200,
      statusDescription: "200 OK",
      headers: { "content-type": "application/json" },
      isBase64Encoded: false,
    });
    expect(agentResult(albEvent(true), response)).toMatchObject({
      multiValueHeaders: { "content-type": ["application/json"] },
    });
  });

  it("answers API Gateway with a payload 2.0 result", () => {
    expect(agentResult(httpApiEvent, jsonResponse(400, {}))).toEqual({
      statusCode: 400,
      headers: { "content-type": "application/json" },
      body: "{}",
      isBase64Encoded: false,
    });
  });
});
