import { DynamoTenantSettings } from "../dynamodb/tenant-settings.js";
import { MemoryTenantSettings } from "../memory/tenant-settings.js";
import { tableOfItsOwn } from "./local-stack.js";
import { tenantSettingsContract } from "./tenant-settings.contract.js";

const table = tableOfItsOwn();

tenantSettingsContract("DynamoDB", () => new DynamoTenantSettings(table.documents, table.name));
tenantSettingsContract("the memory fake", () => new MemoryTenantSettings());
