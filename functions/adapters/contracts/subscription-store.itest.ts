import { DynamoSubscriptionStore } from "../dynamodb/subscription-store.js";
import { MemorySubscriptionStore } from "../memory/subscription-store.js";
import { tableOfItsOwn } from "./local-stack.js";
import { subscriptionStoreContract } from "./subscription-store.contract.js";

const table = tableOfItsOwn();

subscriptionStoreContract("DynamoDB", () => new DynamoSubscriptionStore(table.documents, table.name));
subscriptionStoreContract("the memory fake", () => new MemorySubscriptionStore());
