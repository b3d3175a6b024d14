import { DynamoAssetCatalog } from "../dynamodb/asset-catalog.js";
import { DynamoResourceSetStore } from "../dynamodb/resource-sets.js";
import { MemoryAssetCatalog } from "../memory/asset-catalog.js";
import { MemoryResourceSetStore } from "../memory/resource-sets.js";
import { tableOfItsOwn } from "./local-stack.js";
import { resourceSetsContract } from "./resource-sets.contract.js";

const table = tableOfItsOwn();

resourceSetsContract("DynamoDB", () => ({
  assets: new DynamoAssetCatalog(table.documents, table.name),
  sets: new DynamoResourceSetStore(table.documents, table.name),
}));
resourceSetsContract("the memory fake", () => {
  const assets = new MemoryAssetCatalog();
  return { assets, sets: new MemoryResourceSetStore(assets) };
});
