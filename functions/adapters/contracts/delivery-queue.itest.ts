import { DynamoDeliveryQueue } from "../dynamodb/delivery-queue.js";
import { MemoryDeliveryQueue } from "../memory/delivery-queue.js";
import { deliveryQueueContract } from "./delivery-queue.contract.js";
import { tableOfItsOwn } from "./local-stack.js";

const table = tableOfItsOwn();

deliveryQueueContract("DynamoDB", () => new DynamoDeliveryQueue(table.documents, table.name, 7));
deliveryQueueContract("the memory fake", () => new MemoryDeliveryQueue());
