import type { ArchiveReader } from "../core/archive/ports.js";
import type { AssetContentStore } from "../core/assets/ports.js";
import type { DebugBundleContent } from "../core/bundles/ports.js";
import type { KeptEvents } from "../core/events/ports.js";
import { loadedOnce } from "../core/loaded-once.js";
import type { OperationResultStore } from "../core/operations/ports.js";
import { objectsForDirectCalls } from "./aws-clients/direct.js";
import { environmentNow } from "./aws-clients/environment.js";
import { loadedOnFirstCall } from "./on-first-call.js";

/**
 * A function's adapters to the asset bucket's objects, over one S3 client, and to the event archive's, read
 * directly. Each is loaded by its first call, the asset bucket's with the S3 SDK and its client: most requests and
 * most of the sweeper's runs read or write no object, and a cold start need not compile the S3 SDK's packages for
 * them. A client never loaded has nothing to destroy.
 */
export function s3AdaptersOnFirstCall(bucket: string) {
  const env = environmentNow();
  const client = loadedOnce(async () => (await import("./aws-clients/s3.js")).makeS3Client(env));
  // The archive's objects are read directly, without the S3 SDK: the sweeper's daily snapshot lists them.
  const archiveObjects = objectsForDirectCalls(env);
  return {
    assetContent: loadedOnFirstCall<AssetContentStore>(async () => {
      const { S3AssetContent } = await import("../adapters/s3/asset-content.js");
      return new S3AssetContent(await client(), bucket);
    }),
    operationResults: loadedOnFirstCall<OperationResultStore>(async () => {
      const { S3OperationResults } = await import("../adapters/s3/operation-results.js");
      return new S3OperationResults(await client(), bucket);
    }),
    debugBundleContent: loadedOnFirstCall<DebugBundleContent>(
      async () => {
        const { S3DebugBundleContent } = await import("../adapters/s3/debug-bundle-content.js");
        return new S3DebugBundleContent(await client(), bucket);
      },
      { read: true },
    ),
    /** The event archive's objects in `archiveBucket` read back. */
    archiveReader: (archiveBucket: string) =>
      loadedOnFirstCall<ArchiveReader & KeptEvents>(
        async () => {
          const { S3EventArchiveReader } = await import("../adapters/s3/event-archive-reader.js");
          const { s3ObjectCalls } = await import("../adapters/s3/object-calls.js");
          return new S3EventArchiveReader(s3ObjectCalls(archiveObjects, archiveBucket));
        },
        { eventsUnder: true },
      ),
    destroy: () => {
      client.loaded()?.destroy();
      archiveObjects.destroy();
    },
  };
}
