import { DynamoClassCatalog } from "../dynamodb/class-catalog.js";
import { DynamoRolloutStore } from "../dynamodb/rollout-store.js";
import { MemoryClassCatalog } from "../memory/class-catalog.js";
import { MemoryRolloutStore } from "../memory/rollout-store.js";
import { tableOfItsOwn } from "./local-stack.js";
import { rolloutStoreContract } from "./rollout-store.contract.js";

const table = tableOfItsOwn();

rolloutStoreContract("DynamoDB", () => ({
  store: new DynamoRolloutStore(table.documents, table.name),
  catalog: new DynamoClassCatalog(table.documents, table.name),
}));
rolloutStoreContract("the memory fake", () => {
  const catalog = new MemoryClassCatalog();
  return { store: new MemoryRolloutStore(catalog), catalog };
});
