import { DynamoDebugBundles } from "../dynamodb/debug-bundles.js";
import { MemoryDebugBundles } from "../memory/debug-bundles.js";
import { debugBundleStoreContract } from "./debug-bundle-store.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

debugBundleStoreContract("DynamoDB", () => new DynamoDebugBundles(table.documents, table.name));
debugBundleStoreContract("the memory fake", () => new MemoryDebugBundles());
