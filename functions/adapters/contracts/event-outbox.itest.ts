import { DynamoEventOutbox } from "../dynamodb/event-outbox.js";
import { DynamoOperationStore } from "../dynamodb/operation-store.js";
import { MemoryEventOutbox } from "../memory/event-outbox.js";
import { MemoryOperationStore } from "../memory/operation-store.js";
import { eventOutboxContract } from "./event-outbox.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

eventOutboxContract("DynamoDB", () => ({
  store: new DynamoOperationStore(table.documents, table.name),
  outbox: new DynamoEventOutbox(table.documents, table.name),
}));
eventOutboxContract("the memory fake", () => {
  const outbox = new MemoryEventOutbox();
  return { store: new MemoryOperationStore(outbox), outbox };
});
