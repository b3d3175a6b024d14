import { gzipSync } from "node:zlib";
import { DynamoManifestCatalog } from "../dynamodb/manifest-catalog.js";
import { DynamoManifestStore } from "../dynamodb/manifest-store.js";
import { MemoryManifestCatalog } from "../memory/manifest-catalog.js";
import { tableOfItsOwn } from "./local-stack.js";
import { manifestCatalogContract } from "./manifest-catalog.contract.js";

const table = tableOfItsOwn();

manifestCatalogContract("DynamoDB", () => {
  const manifests = new DynamoManifestStore(table.documents, table.name);
  return {
    catalog: new DynamoManifestCatalog(table.documents, table.name),
    store: async (tenant, manifestId, json, summary, now) => {
      await manifests.store(tenant, manifestId, json, summary, now);
    },
  };
});
// Core's tests add manifest records as the console reads them.
manifestCatalogContract("the memory fake", () => {
  const catalog = new MemoryManifestCatalog();
  return {
    catalog,
    store: async (tenant, manifestId, json, summary, now) => {
      const { processorTypes, controllerServiceTypes, ...rest } = summary;
      const record = {
        ...rest,
        manifestId,
        processorTypeCount: processorTypes,
        controllerServiceTypeCount: controllerServiceTypes,
        jsonBytes: Buffer.byteLength(json),
        gzipBytes: gzipSync(json).length,
        createdAt: now,
      };
      catalog.add(tenant, record, json);
    },
  };
});
