import { DynamoSelectionJobStore } from "../dynamodb/selection-job-store.js";
import { MemorySelectionJobStore } from "../memory/selection-job-store.js";
import { tableOfItsOwn } from "./local-stack.js";
import { selectionJobStoreContract } from "./selection-job-store.contract.js";

const table = tableOfItsOwn();

selectionJobStoreContract("DynamoDB", () => new DynamoSelectionJobStore(table.documents, table.name));
selectionJobStoreContract("the memory fake", () => new MemorySelectionJobStore());
