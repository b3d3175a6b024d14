import { dropUndefined } from "../../core/json.js";
import type { ManifestCatalog, ManifestRecord } from "../../core/manifests/ports.js";
import type { PageRequest } from "../../core/paging.js";
import { type DocumentClient, directCalls } from "./direct-calls.js";
import { Keys } from "./keys.js";
import { DynamoManifestStore } from "./manifest-store.js";
import { queryPartition } from "./paging.js";

const MANIFEST_PREFIX = "M#";
/** Everything of a manifest's item but its body, which can be ~50 KB of gzip. */
const SUMMARY_ATTRIBUTES = [
  "manifestId",
  "agentType",
  "version",
  "bundleCount",
  "processorTypes",
  "controllerServiceTypes",
  "jsonBytes",
  "gzipBytes",
  "createdAt",
];
const projection = {
  ProjectionExpression: SUMMARY_ATTRIBUTES.map((name) => `#${name}`).join(", "),
  ExpressionAttributeNames: Object.fromEntries(SUMMARY_ATTRIBUTES.map((name) => [`#${name}`, name])),
};

/** The tenant's binaries as the agent API stored them (see DynamoManifestStore), read without their bodies. */
export class DynamoManifestCatalog implements ManifestCatalog {
  private readonly store: DynamoManifestStore;

  constructor(
    private readonly client: DocumentClient,
    private readonly tableName: string,
  ) {
    this.store = new DynamoManifestStore(client, tableName);
  }

  async list(tenant: string, request: PageRequest) {
    const page = await queryPartition(
      this.client,
      this.tableName,
      { pk: Keys.manifest(tenant, "").pk, prefix: MANIFEST_PREFIX },
      request,
      projection,
    );
    return { items: page.items.map(toManifest), last: page.last };
  }

  async get(tenant: string, manifestId: string) {
    const { Item } = await directCalls(this.client).get({
      TableName: this.tableName,
      Key: Keys.manifest(tenant, manifestId),
      ...projection,
    });
    return Item ? toManifest(Item) : undefined;
  }

  read(tenant: string, manifestId: string) {
    return this.store.read(tenant, manifestId);
  }
}

function toManifest(item: Record<string, unknown>): ManifestRecord {
  return dropUndefined({
    manifestId: item.manifestId as string,
    agentType: item.agentType as string | undefined,
    version: item.version as string | undefined,
    bundleCount: item.bundleCount as number,
    processorTypeCount: item.processorTypes as number,
    controllerServiceTypeCount: item.controllerServiceTypes as number,
    jsonBytes: item.jsonBytes as number,
    gzipBytes: item.gzipBytes as number,
    createdAt: item.createdAt as number,
  });
}
