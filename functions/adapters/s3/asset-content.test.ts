import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { S3AssetContent } from "./asset-content.js";

const keys = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const storeSignedBy = (credentials: S3ClientConfig["credentials"]) =>
  new S3AssetContent(new S3Client({ region: "eu-west-1", credentials }), "assets");

describe("the S3 asset store's signing credentials", () => {
  it("expire when the session credentials the client holds say, as a role session's do", async () => {
    const expiration = new Date(Date.UTC(2026, 10, 30, 13));
    const store = storeSignedBy(async () => ({ ...keys, sessionToken: "session", expiration }));
    expect(await store.signingCredentialsExpireAt()).toBe(expiration.getTime());
  });

  it("never expire when the client holds long-term keys", async () => {
    expect(await storeSignedBy(keys).signingCredentialsExpireAt()).toBeUndefined();
  });
});
