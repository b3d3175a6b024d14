import { DynamoDebugBundles } from "../adapters/dynamodb/debug-bundles.js";
import { DynamoOperationStore } from "../adapters/dynamodb/operation-store.js";
import { DynamoRevocationList } from "../adapters/dynamodb/revocation-list.js";
import { S3DebugBundleContent } from "../adapters/s3/debug-bundle-content.js";
import { makeDebugBundleIntake } from "../core/bundles/intake.js";
import { documentsForDirectCalls } from "../runtime/aws-clients/direct.js";
import { makeS3Client } from "../runtime/aws-clients/s3.js";
import { composeEventStream } from "../runtime/event-stream.js";
import { makeCacheClient } from "../runtime/redis-client.js";
import { randomIds, systemClock } from "../runtime/system.js";
import type { BundleIntakeConfig } from "../shared/config.js";

/**
 * Wires the bundle intake to DynamoDB, S3 and the stream; once per process. An upload is rare, and reads the
 * revocation list and the operation consistently from the table; the cache only holds a stored bundle's upload
 * event when the stream is down, as it holds the agent API's events.
 */
export function composeBundleIntake(config: BundleIntakeConfig) {
  const documents = documentsForDirectCalls();
  const s3 = makeS3Client();
  const redis = makeCacheClient({ url: config.redisUrl, commandTimeoutMs: config.cacheTimeoutMs });
  return {
    intake: makeDebugBundleIntake({
      operations: new DynamoOperationStore(documents, config.tableName),
      bundles: new DynamoDebugBundles(documents, config.tableName),
      content: new S3DebugBundleContent(s3, config.assetBucket),
      revocations: new DynamoRevocationList(documents, config.tableName),
      events: composeEventStream(documents, redis, config).events,
      clock: systemClock,
      ids: randomIds,
      caBindings: config.caBindings,
      retentionMs: config.retentionMs,
    }),
    close: async () => {
      documents.destroy();
      s3.destroy();
      redis.disconnect();
    },
  };
}
