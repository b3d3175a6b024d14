import { afterAll, inject } from "vitest";
import { makeS3Client } from "../../runtime/aws-clients/s3.js";
import { EnvNames } from "../../shared/env-names.js";
import { MemoryEventArchive } from "../memory/event-archive.js";
import { S3EventArchive } from "../s3/event-archive.js";
import { S3EventArchiveReader } from "../s3/event-archive-reader.js";
import { s3ObjectCalls } from "../s3/object-calls.js";
import { eventArchiveContract } from "./event-archive.contract.js";

const env = inject("beaconEnv");
const s3 = makeS3Client(env);
afterAll(() => s3.destroy());

// The local stack's archive bucket: every key starts with its tenant's folder, and each case has a tenant of its own.
const bucket = env[EnvNames.archiveBucket] as string;
eventArchiveContract("S3 (S3Proxy)", () => {
  const store = new S3EventArchive(s3ObjectCalls(s3, bucket));
  const reader = new S3EventArchiveReader(s3ObjectCalls(s3, bucket));
  return {
    put: (key: string, text: string) => store.put(key, text),
    eventsUnder: (prefix: string) => reader.eventsUnder(prefix),
    bytesUnder: (prefix: string) => reader.bytesUnder(prefix),
    foldersUnder: (prefix: string) => reader.foldersUnder(prefix),
  };
});
eventArchiveContract("the memory fake", () => new MemoryEventArchive());
