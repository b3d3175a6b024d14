import { DynamoAssetCatalog } from "../dynamodb/asset-catalog.js";
import { MemoryAssetCatalog } from "../memory/asset-catalog.js";
import { assetCatalogContract } from "./asset-catalog.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

assetCatalogContract("DynamoDB", () => new DynamoAssetCatalog(table.documents, table.name));
assetCatalogContract("the memory fake", () => new MemoryAssetCatalog());
