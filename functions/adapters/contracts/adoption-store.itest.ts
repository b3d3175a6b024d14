import { DynamoAdoptionStore } from "../dynamodb/adoption-store.js";
import { DynamoClassCatalog } from "../dynamodb/class-catalog.js";
import { DynamoRolloutStore } from "../dynamodb/rollout-store.js";
import { MemoryAdoptionStore } from "../memory/adoption-store.js";
import { MemoryClassCatalog } from "../memory/class-catalog.js";
import { MemoryRolloutStore } from "../memory/rollout-store.js";
import { adoptionStoreContract } from "./adoption-store.contract.js";
import { tableOfItsOwn } from "./local-stack.js";
import { canaryRollout } from "./rollout-store.contract.js";

const table = tableOfItsOwn();

adoptionStoreContract("DynamoDB", () => {
  const rollouts = new DynamoRolloutStore(table.documents, table.name);
  return {
    store: new DynamoAdoptionStore(table.documents, table.name),
    classes: new DynamoClassCatalog(table.documents, table.name),
    startRollout: async (tenant, className) => {
      await rollouts.start(canaryRollout(tenant, className), undefined);
    },
  };
});
adoptionStoreContract("the memory fake", () => {
  const classes = new MemoryClassCatalog();
  const rollouts = new MemoryRolloutStore(classes);
  return {
    store: new MemoryAdoptionStore(classes),
    classes,
    startRollout: async (tenant, className) => {
      await rollouts.start(canaryRollout(tenant, className), undefined);
    },
  };
});
