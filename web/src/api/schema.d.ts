// Generated from schemas/console/openapi.json by `npm run web:api-types`; do not edit.

export interface paths {
    "/api/v1/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** This document */
        get: operations["getOpenApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Agent classes, with agent counts by status */
        get: operations["listClasses"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A class name (see the `ClassName` schema). */
                className: components["parameters"]["ClassName"];
            };
            cookie?: never;
        };
        /** One agent class, with agent counts by status */
        get: operations["getClass"];
        /**
         * Create an agent class or update its description, expected heartbeat interval and acknowledgement timeout
         * @description Fields left out keep their value. The heartbeat interval decides when the class's agents count as offline (three missed heartbeats); the acknowledgement timeout, when an operation delivered to one of them and not acknowledged times out.
         */
        put: operations["putClass"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/flows": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        /** The class's flow versions, by hash */
        get: operations["listFlows"];
        put?: never;
        /**
         * Publish a flow version for the class
         * @description The body is the flow document itself, sent as is (optionally with `Content-Encoding: gzip`), at most 5 MB inflated: a MiNiFi Java 2.x `flow.json` (a `rootGroup`), or a MiNiFi C++ flow configuration in JSON or YAML (a `Flow Controller` with `Processors`). Beacon detects the format, reads the processor and controller service types it uses and stores the bytes, addressed by their SHA-256, which is also the flow id agents get. Versions are immutable: the same bytes again answer 200 with the version already stored. A version declaring parameters is refused while an agent of the class would get no value for one, or a value its binary refuses (409 `parameters_not_ready`): set the values first. Each new version takes the class's next number (v1, v2, …), and may be given a label (`label`).
         */
        post: operations["uploadFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/flows/{hash}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        /** A flow version's metadata */
        get: operations["getFlow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/flows/{hash}/label": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        get?: never;
        /**
         * Set or remove a flow version's label
         * @description Labels the version (`kafka tls`), replacing its label; the empty string removes it. The version itself, its hash and its number stay.
         */
        put: operations["labelFlow"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/flows/{hash}/content": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        /** The flow document, exactly as uploaded */
        get: operations["getFlowContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/flows/{hash}/validation": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        /**
         * Dry run: could the class's agents run this flow version?
         * @description Every processor and controller service type the flow uses must be in the agent's manifest. A type without a package (`GenerateFlowFile`, as C++ flows may name it) matches a manifest type with that last segment. Agents whose manifest Beacon does not hold count as unable to run it.
         */
        get: operations["validateFlow"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/running-flows": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        /**
         * The flows a class's agents run, grouped by flow id
         * @description Each distinct flow id the class's agents report (their heartbeats' `flowInfo.flowId`), how many report it, a few of them, and the version of the class that holds it when Beacon does: the flow id is the version's hash, or the flow id adopted with it. Agents reporting no flow are counted apart. Read from the registry's class index (one query, a page per MB of agent profiles), so it lags heartbeats as the agent list does.
         */
        get: operations["listRunningFlows"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/adoptions": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        /**
         * The class's adoptions, newest first
         * @description Every adoption of the class, requested, adopted or failed, newest first, as it stands: the sweeper settles an adoption still requested within about a minute of its bundle being stored or its TRANSFER DEBUG ending without one, and a read of it (`GET /classes/{className}/adoptions/{adoptionId}`) settles it at once.
         */
        get: operations["listAdoptions"];
        put?: never;
        /**
         * Adopt a flow the class's agents run
         * @description Fetches the flow agents report by `flowId` from one of them (the agent named, else the one of them seen last): Beacon asks it for a debug bundle (TRANSFER DEBUG), which holds its flow (`flow.json` for MiNiFi Java, `config.yml`, the flow configuration file, for C++). Once the bundle is stored, Beacon reads the flow out of it (at the sweeper's next pass, within about a minute, or at a read of the adoption before), validates it as an uploaded version is validated, and keeps it as a version of the class with `flowId` recorded on it: the class's policy counts agents reporting `flowId` as on that version. When the class had no flow version in force (no policy, no rollout), the version becomes its current one, so catch-up moves only the agents running other flows. Refused (400) when the class holds the flow already, 404 when no agent of the class reports it, 409 when the agent cannot take TRANSFER DEBUG.
         */
        post: operations["adoptFlow"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/adoptions/{adoptionId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /** @description As the adoption's request answered it: the id of its TRANSFER DEBUG operation. */
                adoptionId: string;
            };
            cookie?: never;
        };
        /**
         * An adoption and where it stands
         * @description `requested` while the agent's bundle is awaited; once it is stored, the sweeper's next pass (within about a minute) or a read before it reads the flow out of it and settles the adoption: `adopted`, with the version's `flowHash` (its document at `GET /classes/{className}/flows/{hash}/content`), or `failed` with the `reason` (no bundle, no flow in it, a flow Beacon cannot read or larger than it takes).
         */
        get: operations["getAdoption"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's assets, by id */
        get: operations["listAssets"];
        put?: never;
        /**
         * Store an asset
         * @description The body is the asset's bytes, sent as is with their own Content-Type (`application/octet-stream` when in doubt; any media type but a form's), at most 4 MiB (4,194,304 bytes): the bytes pass through one synchronous Lambda invocation, whose 6 MB payload holds 4 MiB once base64-encoded. A larger asset, up to 100 MiB, is uploaded in parts straight to S3 (`POST /api/v1/assets/uploads`). Beacon stores the bytes in S3 under the tenant, addressed by their SHA-256, which is the asset's id, and records the asset with its name. Assets are immutable: the same bytes under the same name again answer 200 with the asset already stored. Nothing is stored when the request is refused.
         */
        post: operations["uploadAsset"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets/uploads": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start uploading an asset in parts
         * @description Starts an upload of an asset of up to 100 MiB (104,857,600 bytes) whose bytes go straight to S3, never through Beacon's functions. The request declares the asset: its name, size, SHA-256 (its id to be) and media type, all checked here: a size over the limit is refused (413) and nothing is stored. The answer lists the parts, each of `partBytes` (8 MiB) but the last, each with a presigned URL that takes the part's bytes by a plain HTTP `PUT` (no credentials, no other header needed; a part sent again replaces itself) until `expiresAt`, an hour on, or sooner when the credentials that sign the URLs expire sooner (a presigned URL stops working with its signer's session; `POST /api/v1/assets/uploads/{uploadId}/parts` signs the parts still to send again). Then `POST /api/v1/assets/uploads/{uploadId}/complete` checks the bytes and only then makes the asset. An upload neither completed nor aborted is removed by the bucket's lifecycle a day later.
         */
        post: operations["startAssetUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets/uploads/{uploadId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
                uploadId: components["parameters"]["UploadId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Abandon an upload in parts
         * @description Removes the upload's parts and staged bytes; nothing is stored, and its part URLs take no more parts.
         */
        delete: operations["abortAssetUpload"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets/uploads/{uploadId}/complete": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
                uploadId: components["parameters"]["UploadId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Complete an upload in parts: check it, then store the asset
         * @description Checks the upload: every part there at its size (a part missing answers 409 `asset_upload_incomplete` and the upload stays, to be sent and completed again), then the joined bytes read whole, streamed, for their real size and SHA-256 (S3's multipart checksums are no whole-object SHA-256). Bytes other than those declared answer 422 `asset_upload_mismatch`: the upload is removed and nothing is stored. Bytes as declared become the asset, recorded last as the commit point, and the upload is gone.
         */
        post: operations["completeAssetUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets/uploads/{uploadId}/parts": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
                uploadId: components["parameters"]["UploadId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Sign an upload's remaining parts again
         * @description Fresh presigned URLs for parts of an upload under way, named by number: the parts still to send once the URLs the upload started with have expired, or the credentials that signed them rotated (a function's role credentials on AWS carry no expiry Beacon can read, so a link may stop working before its `expiresAt`; storage then answers a part's PUT with 403). Each URL takes its part by a plain HTTP `PUT`, as the first ones did, until `expiresAt`: an hour on, or sooner when the signing credentials expire sooner. Nothing else changes: the parts sent stay sent. A completed, aborted, expired or another tenant's upload is none (404).
         */
        post: operations["signAssetUploadParts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets/{assetId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The asset's id: the SHA-256 of its bytes, lower-case hex. The example is the id of the upload example.
                 * @example fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264
                 */
                assetId: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        /** An asset's record */
        get: operations["getAsset"];
        put?: never;
        post?: never;
        /**
         * Delete an asset
         * @description Deletes the record and the bytes. Refused while a class's resource set holds the asset: its agents would be sent bytes that are gone.
         */
        delete: operations["deleteAsset"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/assets/{assetId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The asset's id: the SHA-256 of its bytes, lower-case hex. The example is the id of the upload example.
                 * @example fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264
                 */
                assetId: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        /**
         * An asset's bytes
         * @description A redirect to the asset's bytes exactly as uploaded (up to 100 MiB), with the Content-Type they were uploaded with and saved under the asset's name (`Content-Disposition: attachment`), in the bucket, by a link that lasts 5 minutes: an asset may be far larger than the console API's answer can carry. `curl -L` follows it (and sends no credentials to the bucket).
         */
        get: operations["getAssetContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/resources": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        /** The class's resource set */
        get: operations["getResourceSet"];
        /**
         * Set the assets the class's agents hold
         * @description Replaces the class's resource set and queues a SYNC RESOURCE carrying the whole set for each agent of the class that does not report its digest (every agent of the class, read a thousand at a time): agents download what they lack from the agent API over mutual TLS and delete what the set no longer lists. An UPDATE CONFIGURATION of a flow that names assets (`@{asset-id:<id>}`) needs them in the set, and depends on the agent's SYNC RESOURCE.
         */
        put: operations["putResourceSet"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/parameters": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        /**
         * The parameter values set for the class
         * @description The class layer: values for every agent of the class, over the flow's defaults; with the changes staged for a rollout beside them, for a class whose value changes roll out.
         */
        get: operations["listClassParameters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/staged-parameters": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Discard the changes of the class's values staged for a rollout
         * @description The class's values in force stay as they are; no agent is sent anything.
         */
        delete: operations["discardStagedClassParameters"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/classes/{className}/parameters/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        /** The value set for one parameter at the class layer */
        get: operations["getClassParameter"];
        /**
         * Set a parameter's value for the class
         * @description Sets the value at the class layer, replacing the one it had; for a class whose `valueChanges` is `rollout`, stages the change instead (202). A sensitive parameter takes a `secretRef`: the secret stays in Secrets Manager or Parameter Store, and the audit trail names the reference alone.
         */
        put: operations["putClassParameter"];
        post?: never;
        /**
         * Remove a parameter's value at the class layer
         * @description The layers below give the value again; for a class whose `valueChanges` is `rollout`, once a rollout of the class's staged values brings the removal (202).
         */
        delete: operations["deleteClassParameter"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Agents, filtered, by agent id
         * @description Reads the registry's indexes (never the whole table): by class when `class` is given, otherwise the tenant's whole fleet, in agent id order. Status and last seen come from the cache's hot state, or from the registry when the cache is unreachable. Labels are matched within the same index query, as the other registry filters are.
         */
        get: operations["listAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        /** One agent: registry entry and hot state */
        get: operations["getAgent"];
        put?: never;
        post?: never;
        /**
         * Decommission an agent
         * @description Revokes the agent's agent certificates, drops its hot state and keeps its registry entry marked decommissioned, out of every read, list and count. An agent that heartbeats again with a fleet certificate registers again as new.
         */
        delete: operations["decommissionAgent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/pin": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        get?: never;
        /**
         * Pin an agent to a flow version of its class
         * @description Pins the agent to the version named, or to the one it runs now (400 when Beacon knows it as no version of the class). Catch-up and rollouts leave a pinned agent on its version until it is unpinned; catch-up sends it its version again should it report another flow. An agent running another flow is sent an UPDATE CONFIGURATION to the version once, as `POST /operations` would (409 when the agent cannot take it; the pin stays). While Beacon's cache is unreachable, nothing is pinned (503).
         */
        put: operations["pinAgent"];
        post?: never;
        /**
         * Unpin an agent
         * @description Unpins the agent: its class's catch-up then brings it to the class's target in its normal way. While Beacon's cache is unreachable, nothing is unpinned (503).
         */
        delete: operations["unpinAgent"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/labels": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set or remove an agent's labels
         * @description Changes the labels operators set on the agent and answers them all. Concurrent changes of one agent's labels: the last one wins.
         */
        post: operations["labelAgent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        /**
         * The agent's recent events, newest first
         * @description What Beacon kept of the agent's events from the stream: its first sighting (registration), every acknowledgement it sent, every state change of its operations (the flows it was sent among them) and its certificate's expiry warning; not its steady heartbeats. Each is kept 14 days (`BEACON_HISTORY_RETENTION_DAYS`) and appears a few seconds after it happened, once the stream consumer has read it.
         */
        get: operations["listAgentEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/parameters": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        /**
         * The parameters the agent gets, each with its effective value and the layer it comes from
         * @description Each parameter the class's target flow version declares or a layer sets, resolved flow < class < group < agent (of several groups, the highest `parameterPriority`, then the name sorting last); secret references are shown as references. `agentValues` lists the values set for the agent itself.
         */
        get: operations["listAgentParameters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/agents/{agentId}/parameters/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        /** The value set for one parameter at the agent layer */
        get: operations["getAgentParameter"];
        /**
         * Set a parameter's value for the agent
         * @description Sets the value at the agent layer, replacing the one it had. A sensitive parameter takes a `secretRef`: the secret stays in Secrets Manager or Parameter Store, and the audit trail names the reference alone.
         */
        put: operations["putAgentParameter"];
        post?: never;
        /**
         * Remove a parameter's value at the agent layer
         * @description The layers below give the value again.
         */
        delete: operations["deleteAgentParameter"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/manifests": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The binaries the tenant's agents run, by canonical identity
         * @description One entry per binary (agent type and version, build info, bundles with their component definitions), however many agents run it: agents of one build report different manifest hashes, which Beacon keeps on each agent.
         */
        get: operations["listManifests"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/manifests/{manifestId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The binary's canonical identity: the SHA-256 of its manifest's content without the per-agent fields, keys and arrays sorted, leaves as strings. */
                manifestId: components["parameters"]["ManifestId"];
            };
            cookie?: never;
        };
        /** Summary of a binary's manifest */
        get: operations["getManifest"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/manifests/{manifestId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The binary's canonical identity: the SHA-256 of its manifest's content without the per-agent fields, keys and arrays sorted, leaves as strings. */
                manifestId: components["parameters"]["ManifestId"];
            };
            cookie?: never;
        };
        /** The binary's manifest in its canonical form, without what is per agent */
        get: operations["getManifestContent"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the tenant set for its whole fleet
         * @description The same for every principal of the tenant: a token limited to some classes reads the defaults its classes follow.
         */
        get: operations["getSettings"];
        /**
         * Change what the tenant sets for its whole fleet
         * @description Fields left out keep their value; a field given as null is unset.
         */
        put: operations["putSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fleet/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Agents per class and status, heartbeats per minute */
        get: operations["getFleetSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fleet/attention": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How many agents of each class need attention, per reason
         * @description Each class's counts per reason, as `GET /agents?attention=<reason>&class=<class>` lists them. A token limited to classes sees its classes' items only.
         */
        get: operations["getFleetAttention"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fleet/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The fleet's metrics for Prometheus
         * @description The tenant's fleet as an OpenMetrics text exposition (version 1.0.0), for Prometheus or any OpenMetrics scraper: agents by class and status, agents needing attention by class and reason (ERROR bulletins and back-pressured queues among them), rollouts in progress by class, and the heartbeats of the last whole minute. Labels are class, status and reason, never an agent: a tenant's series are bounded by its classes (docs/metrics.md). A scrape costs the class list and three cache round trips, whatever the fleet's size. A token limited to classes sees its classes' series only, and no tenant-wide heartbeat count.
         */
        get: operations["getFleetMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fleet/binaries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * How many agents of each class run each binary
         * @description The tenant's agents by class and binary, as the sweeper's last counting pass found them (every few minutes: `BEACON_GROUP_COUNT_MINUTES`, 5 by default): one read whatever the fleet's size. `countedAt` says when; absent, with no items, before the first pass ended. Each binary is named by agent type and version plus the start of its canonical id, as `GET /manifests` names it; `GET /agents?manifestId=<id>&class=<class>` lists its agents. A token limited to classes sees its classes' items only.
         */
        get: operations["getFleetBinaries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fleet/labels": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Set or remove the labels of the agents a selector picks
         * @description Applies the change to every agent the selector picks, as the agent list would, page after page with no cap: a selector without `class` reaches the tenant's whole fleet (refused, 403, to a token limited to classes). Each changed agent costs one registry write.
         */
        post: operations["labelAgents"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/fleet/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The fleet's history per minute, as series for charts
         * @description Counts per step from `from` to `to` (whole minutes; the last hour unless given, at most 24 hours apart), for one class or, without `class`, the whole fleet. Counted from the stream per tenant, class and minute, kept 14 days (`BEACON_HISTORY_RETENTION_DAYS`). Operations count in the class their agent had when they were created.
         */
        get: operations["getFleetHistory"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage/statement": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The caller's tenant's month, priced
         * @description A calendar month's usage (UTC) priced per unit: agent-hours (each hour, the agents active in it), heartbeats accepted and bytes of replies, each line its quantity × its unit price in USD, and their total. The unit prices are the capacity model's (docs/capacity.md) for the way the deployment runs the agent API, charged to the units that drive its costs, so that statements whose usage adds up to the model's month add up to the model's total; a deployment may override them (docs/usage.md). Acknowledgements, operations, bytes in and debug bundle uploads are metered and shown, priced at nothing.
         */
        get: operations["getUsageStatement"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * What the caller's tenant used, hour by hour, and in all
         * @description Per hour from `from` to `to` (whole hours, UTC; the 24 hours up to the current one unless given, at most 31 days apart): the distinct agents active, heartbeats accepted, acknowledgements received, operations created and the bytes of heartbeats and acknowledgements in and out, metered from the event stream once per event however often the stream delivers it (docs/usage.md). Hours without usage are absent. Totals add the hours up, but for the active agents, which are the distinct agents of the whole range.
         */
        get: operations["getUsage"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Agent certificates issued for the tenant, by serial; or those expiring soon, soonest first
         * @description With `expiring=true` or `expiringWithinDays`, only the certificates that are not revoked and expire within that many days from now (`expiring`: the warning window, 30 days unless `BEACON_CERT_EXPIRY_WARNING_DAYS` sets another), soonest first, read from an index of the tenant's certificates by expiry. The sweeper announces each certificate entering the warning window once, as a `certificate.expiring` event on the stream.
         */
        get: operations["listCertificates"];
        put?: never;
        /** Issue an agent or fleet certificate from Beacon's agent CA, for the key of a device's certificate signing request */
        post: operations["issueCertificate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/certificates/{serial}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Hex; case and leading zeros do not matter. A certificate of a tenant's own CA is named by its serial qualified by its CA, `<CA id>.<serial>`, as its record lists it. */
                serial: components["parameters"]["Serial"];
            };
            cookie?: never;
        };
        /** One issued certificate */
        get: operations["getCertificate"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/certificates/{serial}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Hex; case and leading zeros do not matter. A certificate of a tenant's own CA is named by its serial qualified by its CA, `<CA id>.<serial>`, as its record lists it. */
                serial: components["parameters"]["Serial"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a certificate
         * @description The agent API refuses the certificate (403 `certificate_revoked`) at once while its cache is reachable, and in any case within 5 minutes, when its cached copy of the tenant's revocation list expires and is reloaded from the registry. The reason, `unspecified` unless given, is kept with the revocation.
         */
        post: operations["revokeCertificate"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/operations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Operations, newest first */
        get: operations["listOperations"];
        put?: never;
        /**
         * Queue an operation for one agent or a selection of agents
         * @description Each agent gets its own operation, delivered in the reply to its next heartbeat (at most 5 per reply, in the order they were created, after the operations they depend on are done).
         */
        post: operations["createOperation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/operations/selections/{selectionId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As the 202 of `POST /operations` named it. */
                selectionId: components["parameters"]["SelectionId"];
            };
            cookie?: never;
        };
        /**
         * How far a selection left to the sweeper got
         * @description A `POST /operations` by selector that ran out of its time budget answered 202 with this selection: the sweeper queues the rest of its agents a thousand at a time, and it is `done` once every agent the selector picks has its operation (or was skipped), `failed` when a step could not be taken at all (`error`).
         */
        get: operations["getOperationSelection"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/operations/{operationId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        /** One operation and its state */
        get: operations["getOperation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/operations/{operationId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Cancel a queued operation (and those that depend on it) */
        post: operations["cancelOperation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/operations/{operationId}/result": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        /**
         * What a DESCRIBE's acknowledgement answered
         * @description The answer the agent's acknowledgement of a DESCRIBE (CONFIGURATION, METRICS, JSTACK, CORECOMPONENTSTATE, MANIFEST) brought: the acknowledgement's JSON as the agent sent it, without `agentInfo` (a DESCRIBE MANIFEST's manifest, kept in the manifest catalog), and with every value whose key looks secret (it contains `pass`, `pwd`, `secret`, `token`, `credential`, or, separators removed, `privatekey`, `apikey`, `accesskey`, `signingkey`, `sessionkey`) replaced by `"[redacted by Beacon]"`. It is never put on the event stream. Operators and admins only: it holds the agent's configuration values and its components' state. Served for the days the deployment keeps results (7 unless set), then 410.
         */
        get: operations["getOperationResult"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/debug-bundles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's debug bundles, newest first
         * @description The bundles agents uploaded for TRANSFER DEBUG operations and not yet expired, by operation, newest first.
         */
        get: operations["listDebugBundles"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/debug-bundles/{operationId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        /** One debug bundle */
        get: operations["getDebugBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/debug-bundles/{operationId}/content": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        /**
         * Download a debug bundle
         * @description A redirect to the bundle's bytes (`application/gzip`, saved as `debug-<operationId>.tar.gz`) in the bucket, by a link that lasts 5 minutes: a bundle may be 16 MiB, more than the console API's answer can carry. Operators and admins only: a bundle holds the agent's logs and configuration. Audited.
         */
        get: operations["downloadDebugBundle"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Rollouts, newest first */
        get: operations["listRollouts"];
        put?: never;
        /**
         * Roll a flow version out to its class
         * @description Starts with the canary group, queued at once, unless it waits: for an operator other than its creator to approve it when its class has `requireApproval` (awaiting_approval), then for its `startAt` when that is ahead (scheduled); a waiting rollout touches neither its class nor its agents, but holds the class: no other rollout is created for it until it starts and ends or is refused. Once started, each agent gets an UPDATE CONFIGURATION to the version. The sweeper looks at the rollout every minute: an agent is healthy once it acknowledged FULLY_APPLIED and kept heartbeating on the new flow for the soak time without new ERROR bulletins; when a batch is healthy and the interval has passed, the next one starts. Agents offline, on the version already or whose manifest lacks UPDATE CONFIGURATION are skipped. While it runs the class accepts both the previous and the new version; once it completes, the new version is the class's flow and catch-up brings every other agent of the class to it. Refused (409) while the class has a rollout under way or waiting, and when the version's validation finds agents that could not run it, unless `allowIncompatible`.
         */
        post: operations["startRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        /** One rollout and its progress */
        get: operations["getRollout"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/agents": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        /** The rollout's agents, batch by batch, and where each stands */
        get: operations["listRolloutAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/pause": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pause a rollout
         * @description A rollout in canary or rolling holds: no new batch starts; the agents it updated keep the version.
         */
        post: operations["pauseRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Resume a paused rollout
         * @description The rollout returns to where it paused and moves on at once. The failures so far count as accepted: the failure threshold counts those after.
         */
        post: operations["resumeRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/finish": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Finish a continuous rollout
         * @description A continuous rollout that is following its group or selector (or paused while following) ends completed: no agent is added any more, the agents it updated keep the version by their assignments, and the class's target stays as it is. Any other rollout answers 409.
         */
        post: operations["finishRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Abort a rollout
         * @description Stops the rollout and returns the agents it updated to the previous version (rolling_back, then aborted); the previous version is the class's flow again at once. When the class had no previous version, the rollout ends aborted where it stands: updates not yet delivered are cancelled, updated agents keep the version.
         */
        post: operations["abortRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Approve a rollout awaiting approval
         * @description Four eyes: an operator other than the one who created the rollout approves it (its creator gets 403). The rollout starts, its compatibility and readiness checked again on the class as it is now, or, with a startAt ahead, becomes scheduled. Of two approvals at once one is written; the other answers 409.
         */
        post: operations["approveRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/rollouts/{rolloutId}/refuse": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Refuse a rollout that has not started
         * @description Ends a rollout awaiting approval or scheduled as refused, with the reason given: another operator refusing it, or its creator withdrawing it. Its class, untouched while it waited, may have another rollout.
         */
        post: operations["refuseRollout"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's audit trail, newest first
         * @description One record per console request that asks for a change (every method but GET), whatever its answer: refusals (403, 404, 409, 400) are recorded too; a request without a valid token names no tenant and is not. A record names who asked (the token's subject and role), the operation and its route, its target (the path parameters), the status it was answered with, the request id (API Gateway's, as in the `apigw-requestid` header), the source IP and user agent, and when. No request body is kept: for a few operations a summary holds the settings, names and created ids an operator reviews, never content, keys or secrets. Records are kept 400 days unless the deployment sets `BEACON_AUDIT_RETENTION_DAYS`. A page is read then narrowed by `actor` and `operation`, so it may hold fewer records than `limit` and still name a `nextCursor`.
         */
        get: operations["listAuditRecords"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's event subscriptions, in the order they were made */
        get: operations["listSubscriptions"];
        put?: never;
        /**
         * Subscribe an HTTPS endpoint to some of the tenant's events
         * @description Each matching event is posted as JSON (`id`, `type`, `tenant`, `at`, `agentClass`, `data`) with the headers `webhook-id`, `webhook-timestamp` and `webhook-signature` (HMAC-SHA256 of `<id>.<timestamp>.<body>` keyed by the secret), retried with exponential backoff for 24 hours. A subscription whose deliveries keep failing is disabled. A tenant has at most 25.
         */
        post: operations["createSubscription"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{subscriptionId}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        /** A subscription (never its secret) */
        get: operations["getSubscription"];
        put?: never;
        post?: never;
        /**
         * Delete a subscription
         * @description Nothing more is delivered to it; deliveries still queued are dropped.
         */
        delete: operations["deleteSubscription"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{subscriptionId}/test": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Post a signed `webhook.test` notification to the subscription's URL now
         * @description One attempt, at once and outside the delivery queue (a disabled subscription too, to try a mended receiver), signed like every delivery; the answer says how the receiver took it. It is not retried and not logged among the deliveries.
         */
        post: operations["testSubscription"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{subscriptionId}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Make a disabled subscription active again
         * @description Clears `disabledAt` and `disabledReason`, keeping the subscription's id and secret. Events from then on are delivered to it; deliveries given up while it was disabled are not sent again, and events of that time were never queued for it. Enabling an active subscription changes nothing and answers it as it is.
         */
        post: operations["enableSubscription"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/webhooks/{subscriptionId}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        /**
         * A subscription's deliveries, newest first
         * @description Every notification Beacon queued for the subscription, newest event first, with how trying to deliver it went: pending (its next attempt is due at `nextAttemptAt`), delivered (the receiver answered 2xx) or failed (given up 24 hours after its event, on 410 Gone, or because the subscription was disabled or deleted). A failed attempt is retried after 30 s, 1, 2, 5, 10 and 30 min, 1 and 2 h, then every 4 h, each wait within 10% either way. Deliveries are kept 7 days (`BEACON_WEBHOOK_DELIVERY_RETENTION_DAYS`).
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's groups, by name
         * @description With each group's `memberCount` and `countedAt` by the sweeper's counting pass, which counts all the tenant's groups by one read of its agents every few minutes (5 by default); absent for a group created or changed since the last pass ("counting"). A group spans classes: a token limited to classes is refused.
         */
        get: operations["listGroups"];
        put?: never;
        /** Save a query over the tenant's agents as a group */
        post: operations["createGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{groupName}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        /**
         * A group, with its members' count by the last counting pass, or counted now
         * @description `memberCount` and `countedAt` are the sweeper's counting pass's, absent for a group created or changed since the last pass ("counting"). With `count=live` the members are counted now instead: by the registry's index query (Select=COUNT), or, when the query names status or last seen, by reading the members with the cache's values. A live count reads the whole index partition of the tenant (or of the group's one class), half a read unit per 4 KB of agent profiles whatever the query keeps: about 21,000 read units at 100,000 agents, and it may outlast the request at that size.
         */
        get: operations["getGroup"];
        /** Replace a group's query and description */
        put: operations["putGroup"];
        post?: never;
        /** Delete a group */
        delete: operations["deleteGroup"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{groupName}/agents": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        /**
         * The group's members now, as the agent list shows them
         * @description Page after page in agent id order with no cap. A token limited to classes sees the members of its classes only (a page may then come back short, with a cursor).
         */
        get: operations["listGroupAgents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{groupName}/pin": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Pin every member of a group
         * @description Pins every member of the group now, page after page with no cap, each as `PUT /agents/{agentId}/pin` would: to the version it runs, or to `flowHash`, a version of the group's class (400 unless the group's query names exactly one class). A member Beacon cannot pin (it runs no version Beacon knows, the version is not its class's, it has gone) is passed over and named in `skipped`. A token limited to classes pins the members of its classes only; the others are left as they are and not counted. While Beacon's cache is unreachable, pinning stops (503), keeping the pins made.
         */
        post: operations["pinGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{groupName}/unpin": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Unpin every pinned member of a group
         * @description Unpins every pinned member of the group now, page after page with no cap: their class's catch-up then brings them to the class's target. A token limited to classes unpins the members of its classes only; the others are left as they are and not counted. While Beacon's cache is unreachable, unpinning stops (503), keeping the unpins made.
         */
        post: operations["unpinGroup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{groupName}/parameters": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        /** The values the group sets for its members */
        get: operations["listGroupParameters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/groups/{groupName}/parameters/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        /** The value the group sets for one parameter */
        get: operations["getGroupParameter"];
        /**
         * Set a parameter's value for the group's members
         * @description Sets the value at the group layer, replacing the one it had: every member gets it over its class's value and under its own, and is told at once (its cache entry and its pin). Only a group whose query selects on what agents are (classes, labels, agent type and version, manifest ids, components, operating system, architecture) holds values; one using flowId, status, seenWithinMinutes or silentForMinutes is refused (400). A sensitive parameter takes a `secretRef`; for a group naming exactly one class, a parameter that class's flow declares sensitive refuses a plain value.
         */
        put: operations["putGroupParameter"];
        post?: never;
        /**
         * Remove a parameter's value at the group layer
         * @description The members get the value of the next group, their class or the flow again.
         */
        delete: operations["deleteGroupParameter"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        AgentClass: {
            name: string;
            description?: string;
            /** @description The interval agents of the class heartbeat at; an agent that missed three in a row is offline. 60 until set. */
            heartbeatIntervalSeconds: number;
            /** @description How long the class's agents may take to acknowledge an operation once it is delivered; absent until set, when Beacon's default applies (300 s unless configured otherwise). */
            ackTimeoutSeconds?: number;
            /** @description How many days an agent of the class may stay silent before the sweeper decommissions it (its hot state dropped, its registry entry kept as decommissioned, an `agent.decommissioned` event); absent until set, when the tenant's default applies (`GET /settings`), and without one silent agents are kept. */
            cleanUpAfterDays?: number;
            maintenanceWindows?: components["schemas"]["MaintenanceWindows"];
            /** @description Which flow the class's agents should run, once a rollout published a version to it: agents reporting a flow id outside `accepted` are sent `target` (catch-up). While a rollout runs, both its versions are accepted. */
            flow?: {
                /** @description The flow hash catch-up brings agents to. */
                target: string;
                /** @description The flow ids that count as current. */
                accepted: string[];
                targetVersion?: components["schemas"]["FlowVersionName"];
            };
            valueChanges?: components["schemas"]["ValueChanges"];
            /** @description Rollouts to the class wait for a second operator's approval. */
            requireApproval: boolean;
            labelSources?: components["schemas"]["LabelSources"];
            /** @description The rollout under way, if any: a class has at most one. */
            activeRolloutId?: string;
            /** @description Created by the agent API when the first agent of the class heartbeated. */
            autoCreated: boolean;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt?: string;
            agents: components["schemas"]["AgentCounts"];
            /**
             * @description Where the counts came from: the cache's per-class index (every heartbeat), or the registry's index when the cache is unreachable (last-seen times checkpointed every 10 minutes, so an agent that stopped recently may still count as online).
             * @enum {string}
             */
            countsFrom?: "cache" | "registry";
        };
        TenantSettings: {
            /** @description How many days an agent of a class without its own `cleanUpAfterDays` may stay silent before the sweeper decommissions it; absent until set, when such classes keep their silent agents. */
            cleanUpAfterDays?: number;
            /** @description The IANA time zone the classes' maintenance windows keep; absent until set, when they keep UTC. */
            timeZone?: string;
            /** Format: date-time */
            updatedAt?: string;
        };
        TenantSettingsChange: {
            /** @description The clean-up age of classes without their own `cleanUpAfterDays`, in days since an agent's last heartbeat; null unsets it. */
            cleanUpAfterDays?: number | null;
            /** @description An IANA time zone name such as `Europe/Berlin`, kept as Intl spells it; 400 for a name it does not know. Null unsets it: UTC applies. */
            timeZone?: string | null;
        };
        AgentClassChange: {
            description?: string;
            heartbeatIntervalSeconds?: number;
            /** @description How long the class's agents may take to acknowledge an operation once it is delivered, before it times out. */
            ackTimeoutSeconds?: number;
            /** @description How many days an agent of the class may stay silent (since its last heartbeat) before the sweeper decommissions it, over the tenant's default (`PUT /settings`). It registers again at its next heartbeat. Null unsets the class's own value: the tenant's default applies again. */
            cleanUpAfterDays?: number | null;
            maintenanceWindows?: components["schemas"]["MaintenanceWindows"];
            valueChanges?: components["schemas"]["ValueChanges"];
            /** @description Rollouts to the class wait (awaiting_approval) until an operator other than the one who created each approves it (four eyes). */
            requireApproval?: boolean;
            labelSources?: components["schemas"]["LabelSources"];
        };
        /** @description Where labels of the class's agents are read from what they report, one source per label. `from` is `device:` with `hostname`, `ipAddress`, `operatingSystem`, `machineArch` or `deviceId` (from `deviceInfo`); `agent:` with `agentType` or `version` (from the agent's manifest); or `property:` with a property name the manifest's UPDATE PROPERTIES entry lists in `availableProperties`. A source the agent reports nothing for, or a value that is no valid label value, gives no label. An empty list removes the sources. */
        LabelSources: {
            /** @description The label's key, as operators' label keys are spelled. */
            label: string;
            /**
             * @example property:nifi.c2.site
             * @example device:operatingSystem
             */
            from: string;
        }[];
        /**
         * @description How changes of the class's parameter values reach its agents: `immediate` (the default) renders them into the class's flow at once, and catch-up brings every agent whose rendered flow changed to it; `rollout` stages them (listed beside the values in force) until a rollout of the staged values brings them, in a canary and batches gated on health, to exactly the agents whose rendered flow changes.
         * @enum {string}
         */
        ValueChanges: "immediate" | "rollout";
        /** @description 1 to 128 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit: safe in a URL path as it is. A heartbeat reporting any other class is taken as reporting none. */
        ClassName: string;
        AgentClassList: {
            items: components["schemas"]["AgentClass"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
            /**
             * @description As in AgentClass.
             * @enum {string}
             */
            countsFrom: "cache" | "registry";
        };
        AgentCounts: {
            total: number;
            online: number;
            offline: number;
        };
        /** @description The registry entry with the cache's hot state on top. The hot fields (statusSummary, repositories, queues, the latest bulletins, processors, resourceHash, system and configurationChecksums, as the agent's heartbeats last reported them, bounded in number) are absent while the cache is unreachable, and until the agent heartbeats again after the cache lost it (agents unheard of for a week drop out of it). */
        AgentDetail: {
            /** @description The agent's `supportedOperations` as its manifest of `manifestHash` lists them, property values included; absent while Beacon has yet to learn that manifest. Entries that name no operation (not an object with a string `type`) are left out. */
            supportedOperations?: {
                type: string;
            }[];
            /** Format: date-time */
            firstSeen?: string;
            device?: components["schemas"]["Device"];
            statusSummary?: components["schemas"]["StatusSummary"];
            repositories?: components["schemas"]["Repository"][];
            queues?: components["schemas"]["Queue"][];
            /** @description The latest bulletins, oldest first. */
            bulletins?: components["schemas"]["Bulletin"][];
            /** @description Each processor's run status, upper-case, as far as the agent reports them (C++ 0.99.1 and later; Java 2.7 and later). */
            processors?: components["schemas"]["ProcessorStatus"][];
            /** @description `resourceInfo.hash`: the digest of the resources the agent last synchronised; null when it holds none. */
            resourceHash?: string | null;
            system?: components["schemas"]["SystemLoad"];
            /** @description C++ only, where configured: per algorithm (`SHA256`), each configuration file's digest, to tell when `minifi.properties` or the flow changed on the device. */
            configurationChecksums?: {
                [key: string]: {
                    [key: string]: string;
                };
            };
            /** @description The host's load and the flow's queues in total as the agent's latest heartbeats reported them (at most 60, kept in the cache beside its hot state), oldest first. A heartbeat that reported neither adds none. */
            loadSamples?: components["schemas"]["LoadSample"][];
            /** @description The agent's agent certificates (OU=agent, CN=its id) that are not revoked, soonest to expire first, at most 10: the agent stops reaching Beacon when the one it uses expires. Fleet certificates, which speak for many agents, are in `GET /certificates`. */
            certificates?: {
                serial: string;
                /** Format: date-time */
                notAfter: string;
                /**
                 * @description retired: the CA that signed it is no longer trusted (retired after a rotation), so it fails the TLS handshake.
                 * @enum {string}
                 */
                state: "valid" | "expired" | "retired";
            }[];
        } & components["schemas"]["AgentFields"];
        AgentFields: {
            agentId: string;
            agentClass: string;
            /**
             * @description Online while the agent has missed fewer than three heartbeats of its class's interval.
             * @enum {string}
             */
            status: "online" | "offline";
            /** Format: date-time */
            lastSeen: string;
            /**
             * @description `cache`: the time of the agent's last heartbeat. `registry`: the cache did not answer or no longer holds the agent, and the time is the registry's checkpoint, up to 10 minutes older; status then allows for that.
             * @enum {string}
             */
            lastSeenFrom: "cache" | "registry";
            /** @description The hash the agent reports for its manifest: its own, as it covers per-agent values. */
            manifestHash?: string;
            /** @description The binary the agent runs (`GET /manifests/{manifestId}`); absent while Beacon has yet to learn the manifest of `manifestHash`. */
            manifestId?: string;
            flowId?: string;
            hostname?: string;
            runStatus?: string;
            labels?: components["schemas"]["Labels"];
            reportedLabels?: components["schemas"]["ReportedLabels"];
            pinnedFlow?: components["schemas"]["PinnedFlow"];
            flowVersion?: components["schemas"]["FlowVersionName"];
            /** @description The binary's name: agent type and version and the start of `manifestId` (`MiNiFi Java 2.3.0 · 3f9a12c`); absent while Beacon has yet to learn the manifest. */
            binaryName?: string;
            /** @description The agent type its binary's manifest states (`minifi-java`, `cpp`); absent while Beacon has yet to learn the manifest or the manifest states none. */
            agentType?: string;
            /** @description The build version its binary's manifest states (`2.3.0`); absent as `agentType` is. */
            agentVersion?: string;
        };
        /** @description The flow version the agent is pinned to: catch-up and rollouts leave it there until it is unpinned. */
        PinnedFlow: {
            flowHash: string;
            /** Format: date-time */
            pinnedAt: string;
            pinnedBy: string;
        };
        PinRequest: {
            /** @description A flow version of the agent's class; the version the agent runs now when absent. */
            flowHash?: string;
        };
        AgentPinState: {
            agentId: string;
            pinnedFlow?: components["schemas"]["PinnedFlow"];
            /** @description The UPDATE CONFIGURATION sent to an agent that ran another flow than its pin's. */
            operation?: components["schemas"]["Operation"];
        };
        GroupPinRequest: {
            /** @description A flow version of the group's one class; each member's running version when absent. */
            flowHash?: string;
        };
        GroupPinned: {
            /** @description Members pinned. */
            pinned: number;
            /** @description The first 100 members passed over, with why. */
            skipped: {
                agentId: string;
                reason: string;
            }[];
            /** @description Every member passed over. */
            skippedCount: number;
        };
        GroupUnpinned: {
            /** @description Members that were pinned and are no more. */
            unpinned: number;
            /** @description The first 100 members passed over, with why. */
            skipped: {
                agentId: string;
                reason: string;
            }[];
            /** @description Every member passed over. */
            skippedCount: number;
        };
        /** @description The labels the agent's class reads from what the agent reported (`labelSources`), read anew whenever Beacon learns the agent's manifest. An operator's label of the same key wins: filters and selectors match an agent's operators' labels over these. */
        ReportedLabels: {
            [key: string]: string;
        };
        AgentList: {
            items: components["schemas"]["AgentSummary"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        AgentSummary: {
            /** @description Why the agent needs attention; empty when it needs none, absent while the cache cannot tell. */
            attention?: components["schemas"]["AttentionReason"][];
        } & components["schemas"]["AgentFields"];
        /** @description A name of at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit, optionally after a lower-case DNS prefix (at most 253 characters) and `/`, as Kubernetes spells label keys: `site`, `example.com/rack`. Another key answers 400 `invalid_request` naming it. */
        LabelKey: string;
        /** @description Empty, or at most 63 letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit. Another value answers 400 `invalid_request` naming it. */
        LabelValue: string;
        /** @description Key/value labels operators set on agents, at most 32 an agent. */
        Labels: {
            [key: string]: components["schemas"]["LabelValue"];
        };
        /** @description Terms the agent's labels must all meet: `key=value` (the key with that value, `key=` with the empty value) or `key` (the key with any value). */
        LabelSelector: string[];
        LabelKeys: components["schemas"]["LabelKey"][];
        /** @description Labels to set (a key with its new value) and keys to remove; a key in both is refused (400), as is an agent left with more than 32 labels. Removing a key the agent does not have changes nothing. */
        LabelChange: {
            set?: components["schemas"]["Labels"];
            remove?: components["schemas"]["LabelKeys"];
        };
        AgentLabels: {
            agentId: string;
            labels: components["schemas"]["Labels"];
        };
        /** @description A label change (`LabelChange`) with the selector of the agents it applies to. */
        SelectedLabelChange: {
            selector: components["schemas"]["AgentSelector"];
            set?: components["schemas"]["Labels"];
            remove?: components["schemas"]["LabelKeys"];
        };
        LabelledAgents: {
            /** @description Agents the selector picked. */
            matched: number;
            /** @description Agents whose labels changed; the others had them already, or were decommissioned meanwhile. */
            changed: number;
            /** @description Agents left as they were, as the change would have given them more than 32 labels. */
            refused: number;
            /** @description The first 100 of them. */
            refusedAgents: string[];
        };
        Bulletin: {
            level?: string;
            message?: string;
            category?: string;
            sourceName?: string;
            timestamp?: number;
        };
        Certificate: components["schemas"]["CertificateFields"];
        CertificateFields: {
            /** @description Upper-case hex, no separators or leading zeros; for a certificate of a tenant's own CA, qualified by that CA's id (`<CA id>.<serial>`), so that CAs issuing the same serial are told apart. */
            serial: string;
            /** @enum {string} */
            kind: "agent" | "fleet";
            agentId?: string;
            fleetName?: string;
            subjectDN: string;
            /** Format: date-time */
            notBefore: string;
            /** Format: date-time */
            notAfter: string;
            /** Format: date-time */
            issuedAt: string;
            /** @description Subject of the token that issued it; `beacon:dev-ca:<file>` for a local dev-CA certificate that `npm start` or `npm run cert` registered; `tenant-ca:<CA id>` for a certificate of the tenant's own CA, which Beacon did not issue and recorded when an agent first presented it (`issuedAt` is then that time). */
            issuedBy: string;
            /** Format: date-time */
            revokedAt?: string;
            revocationReason?: components["schemas"]["RevocationReason"];
            /**
             * @description retired: the CA that signed it is no longer trusted (`npm run ca -- retire` locally), so an agent presenting it fails the TLS handshake; revoke it or let it expire. Known for certificates Beacon's CA signed, where the deployment tells the console API its trust store (the local stack does).
             * @enum {string}
             */
            state: "valid" | "expired" | "retired" | "revoked";
            /**
             * Format: date-time
             * @description When the sweeper announced that it expires soon (a `certificate.expiring` event); absent until then.
             */
            expiryAnnouncedAt?: string;
        };
        /**
         * @description Why the certificate was revoked, in RFC 5280's terms (CRLReason): `keyCompromise` (its private key may be known to others), `superseded` (another certificate replaces it), `cessationOfOperation` (its agent is gone: decommissioning revokes with this reason), `affiliationChanged`, `privilegeWithdrawn`, or `unspecified`.
         * @enum {string}
         */
        RevocationReason: "unspecified" | "keyCompromise" | "superseded" | "cessationOfOperation" | "affiliationChanged" | "privilegeWithdrawn";
        RevokeRequest: {
            reason?: components["schemas"]["RevocationReason"];
        };
        CertificateList: {
            items: components["schemas"]["Certificate"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
            /** @description The window the list was filtered to, in days, when it was. */
            expiringWithinDays?: number;
        };
        /** @description An agent certificate (OU=agent) speaks for one agent id; a fleet certificate (OU=fleet) for any agent of the tenant. The tenant (O) is the caller's. The key is the device's, from its certificate signing request (`csrPem`), or one Beacon generates when asked for (`generateKey: true`): exactly one of the two. */
        CertificateRequest: ({
            /** @constant */
            kind: "agent";
            agentId: string;
            /** @default 365 */
            validityDays: number;
            /** @description The device's PKCS#10 certificate signing request, PEM (`-----BEGIN CERTIFICATE REQUEST-----`), as `openssl req -new` writes it. Its signature must verify with the key it carries, which must be RSA of 2048 bits or more or EC on P-256 or P-384. Only the key is used: Beacon sets the subject (O the caller's tenant) and the extensions, whatever the request asks for. */
            csrPem?: string;
            /**
             * @description Beacon generates the key pair and returns the private key in the reply, once. For devices that cannot make a CSR; prefer `csrPem`, with which the private key never leaves the device.
             * @constant
             */
            generateKey?: true;
        } & ({
            csrPem: unknown;
        } | {
            generateKey: unknown;
        })) | ({
            /** @constant */
            kind: "fleet";
            fleetName: string;
            /** @default 365 */
            validityDays: number;
            /** @description The device's PKCS#10 certificate signing request, PEM (`-----BEGIN CERTIFICATE REQUEST-----`), as `openssl req -new` writes it. Its signature must verify with the key it carries, which must be RSA of 2048 bits or more or EC on P-256 or P-384. Only the key is used: Beacon sets the subject (O the caller's tenant) and the extensions, whatever the request asks for. */
            csrPem?: string;
            /**
             * @description Beacon generates the key pair and returns the private key in the reply, once. For devices that cannot make a CSR; prefer `csrPem`, with which the private key never leaves the device.
             * @constant
             */
            generateKey?: true;
        } & ({
            csrPem: unknown;
        } | {
            generateKey: unknown;
        }));
        Decommissioned: {
            agentId: string;
            /** Format: date-time */
            decommissionedAt: string;
            /** @description Serials of the agent certificates revoked with it. */
            revokedCertificates: string[];
        };
        /** @description As the agent reported it. */
        Device: {
            deviceId?: string;
            hostname?: string;
            ipAddress?: string;
            operatingSystem?: string;
            machineArch?: string;
            vCores?: number;
            physicalMemory?: number;
        };
        /** @description Beacon's one error body. */
        Error: {
            error: {
                /** @description Stable, machine-readable: `invalid_request`, `unauthenticated`, `forbidden`, `not_found`, `result_expired`, `route_not_found`, `certificate_authority_unavailable`, `operation_not_supported`, `operation_not_queued`, `outside_window`, `confirmation_required`, `cache_unavailable`, `rollout_in_progress`, `rollout_state`, `rollout_conflict`, `flow_incompatible`, `parameters_not_ready`, `unsupported_media_type`, `asset_exists`, `asset_upload_incomplete`, `asset_upload_mismatch`, `asset_in_use`, `group_exists`, `resource_set_conflict`, `subscription_limit`, `webhook_tester_unavailable`, `internal_error`. */
                code: string;
                message: string;
                /** @description What a caller can act on beyond the message. A flow refused for referencing undeclared parameters has `undeclaredParameters` (ParameterReferenceSite items, the first 100) and `undeclaredCount`. A request refused with `parameters_not_ready` has the version (`className`, `flowHash`), `agentCount` (the agents checked) and `truncated` (a class larger than the check reads), `missing` (per parameter: `parameter`, `layer`, the layer that leaves it unset, `agentCount` and the first `agentIds`, those without a value of their own) and `refused` (per value: `parameter`, `processorType`, `property`, `value`, `allowed`, the `layer` it comes from, `agentCount`, `agentIds`). */
                details?: Record<string, never>;
            };
        };
        FleetSummary: {
            agents: components["schemas"]["AgentCounts"];
            classes: {
                name: string;
                agents: components["schemas"]["AgentCounts"];
            }[];
            /** @description True when the tenant has more than 1,000 classes and only the first were summed. */
            classesTruncated: boolean;
            /**
             * @description As in AgentClass.
             * @enum {string}
             */
            countsFrom: "cache" | "registry";
            /** @description Heartbeats the agent API accepted in each of the last 15 minutes, the current one last. null while the cache, which counts them, is unreachable. */
            heartbeatsPerMinute: {
                /** Format: date-time */
                minute: string;
                count: number;
            }[] | null;
        };
        /** @description The body API Gateway's JWT authorizer (and the local gateway, which behaves the same) answers a missing or invalid token with, before Beacon sees the request. */
        GatewayRejection: {
            message: string;
        };
        IssuedCertificate: {
            certificatePem: string;
            /** @description PKCS#8 PEM of the key pair Beacon generated, with `generateKey` only. Returned this once: Beacon does not keep it. */
            privateKeyPem?: string;
            /** @description Beacon's agent CA, for the agent's trust store. */
            caCertificatePem: string;
        } & components["schemas"]["CertificateFields"];
        ManifestFields: {
            manifestId: string;
            agentType?: string;
            version?: string;
            bundleCount: number;
            processorTypeCount: number;
            controllerServiceTypeCount: number;
            jsonBytes: number;
            gzipBytes: number;
            /** Format: date-time */
            createdAt: string;
            /** @description The binary's name: agent type and version and the start of `manifestId` (`MiNiFi Java 2.3.0 · 3f9a12c`). */
            name: string;
        };
        ManifestList: {
            items: components["schemas"]["ManifestListItem"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        ManifestListItem: components["schemas"]["ManifestFields"];
        ManifestSummary: {
            bundles: {
                group?: string;
                artifact?: string;
                version?: string;
            }[];
            processorTypes: string[];
            controllerServiceTypes: string[];
        } & components["schemas"]["ManifestFields"];
        Queue: {
            id: string;
            name?: string;
            size?: number;
            sizeMax?: number;
            dataSize?: number;
            dataSizeMax?: number;
            /** @description At its object or size limit; absent when the agent reports no limit for it. */
            backPressure?: boolean;
        };
        ProcessorStatus: {
            id: string;
            /** @description RUNNING, STOPPED, … */
            runStatus?: string;
        };
        /** @description The host's load, as the agent reported it. */
        SystemLoad: {
            /** @description Fraction of all cores in use, 0 to 1. */
            cpuUtilization?: number;
            cpuLoadAverage?: number;
            /** @description Bytes of memory in use. */
            memoryUsage?: number;
        };
        /** @description One heartbeat's load: MiNiFi Java sends the load average only, MiNiFi C++ the CPU utilization and memory in use too. The CPU utilization is kept to a tenth of a percent (3 decimals), the load average to 2 decimals. */
        LoadSample: {
            /** Format: date-time */
            at: string;
            /** @description Fraction of all cores in use, 0 to 1. */
            cpuUtilization?: number;
            cpuLoadAverage?: number;
            /** @description Bytes of memory in use. */
            memoryUsage?: number;
            /** @description Flowfiles queued over every connection of the flow. */
            queuedFlowFiles?: number;
            /** @description Bytes queued over every connection of the flow. */
            queuedBytes?: number;
        };
        Repository: {
            name: string;
            size?: number;
            maxSize?: number;
            dataSize?: number;
            dataSizeMax?: number;
            entryCount?: number;
            full?: boolean;
            running?: boolean;
        };
        /** @description The agent's last reported status, summed over its flow. */
        StatusSummary: {
            uptime?: number;
            queuedFlowFiles?: number;
            queuedBytes?: number;
            queueCount?: number;
            errorBulletins?: number;
            warningBulletins?: number;
            repositoriesFull?: number;
            /** @description Queues at their object or size limit. */
            backPressuredQueues?: number;
        };
        /**
         * @description queued (waiting for the agent's next heartbeat) → delivered (sent in a heartbeat reply) → done | failed | timed_out; a queued one may be cancelled. awaiting_effect: acknowledged as applied by an agent whose word is no proof of it (a C++ START or STOP), done once a heartbeat shows the run status it asked for, timed_out if none does by `timeoutAt`.
         * @enum {string}
         */
        OperationState: "queued" | "delivered" | "awaiting_effect" | "done" | "failed" | "timed_out" | "cancelled";
        Operation: {
            /** @description Ends with `~` and the agent's id. */
            operationId: string;
            agentId: string;
            /** @description Upper-case, as sent to the agent. */
            operation: string;
            operand?: string;
            /** @description As sent to the agent: strings, except SYNC RESOURCE's `globalHash` (an object) and `resourceList` (an array of objects). */
            args?: {
                [key: string]: string | Record<string, never> | Record<string, never>[];
            };
            dependsOn?: string[];
            state: components["schemas"]["OperationState"];
            /** Format: date-time */
            createdAt: string;
            /** @description The subject of the token that asked for it; `beacon:rollout:<rolloutId>` for one a rollout queued (the console links it to that rollout), `beacon:catch-up` for a flow update Beacon queued itself to bring an agent back to its class's flow. */
            createdBy: string;
            /** Format: date-time */
            deliveredAt?: string;
            /**
             * Format: date-time
             * @description A delivered operation without an acknowledgement by then, or one still awaiting its effect, counts as timed out.
             */
            timeoutAt?: string;
            /** Format: date-time */
            finishedAt?: string;
            /**
             * @description The acknowledgement's state as the agent sent it. PARTIALLY_APPLIED and NO_OPERATION count as done; NOT_APPLIED and OPERATION_NOT_UNDERSTOOD as failed.
             * @enum {string}
             */
            ackState?: "FULLY_APPLIED" | "PARTIALLY_APPLIED" | "OPERATION_NOT_UNDERSTOOD" | "NO_OPERATION" | "NOT_APPLIED";
            /**
             * @description How a done operation was confirmed: by its acknowledgement, by its acknowledgement together with the debug bundle it uploaded, stored (`bundle`, TRANSFER DEBUG), or by a heartbeat that showed its effect (the run status a C++ START or STOP asked for, the flow id of an UPDATE CONFIGURATION whose acknowledgement was lost). Absent for PAUSE and RESUME, done on delivery.
             * @enum {string}
             */
            confirmedBy?: "ack" | "heartbeat" | "bundle";
            details?: string;
            failureCause?: string;
            /** @description Why Beacon closed it itself: cancelled, a dependency that will not be done, an operation the agent's manifest no longer lists, or a TRANSFER DEBUG acknowledged as applied without a stored debug bundle. */
            reason?: string;
            /**
             * Format: date-time
             * @description Held for its class's maintenance windows until then: not delivered before, released by the sweeper's next run from then, its queued timeout counted from then.
             */
            notBefore?: string;
            /** @description The answer its acknowledgement brought (a DESCRIBE's), kept for `GET /operations/{operationId}/result` until `expiresAt`. */
            result?: {
                /** @description Its size in bytes, as served. */
                bytes: number;
                /** Format: date-time */
                expiresAt: string;
            };
            /** @description Its acknowledgement brought an answer that could not be kept (the operation closed all the same). */
            resultLost?: boolean;
            /** @description TRANSFER DEBUG: the debug bundle the agent uploaded, served at `GET /debug-bundles/{operationId}/content` until `expiresAt`. */
            bundle?: {
                /** @description Its size in bytes. */
                bytes: number;
                /** Format: date-time */
                expiresAt: string;
            };
        };
        OperationList: {
            items: components["schemas"]["Operation"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        CreatedOperations: {
            /** @description One operation per agent; for a selection of more than 1,000 agents, the first 1,000. */
            items: components["schemas"]["Operation"][];
            /** @description How many operations were created, when `items` does not list them all or an agent was skipped. */
            created?: number;
            /** @description Agents past a selection's first thousand that could not take the operation (or were outside their class's windows when the request refused those), each with why; the first 1,000. */
            skipped?: {
                agentId: string;
                reason: string;
            }[];
            /** @description How many agents were skipped, when `items` or `skipped` does not list them all. */
            skippedCount?: number;
        };
        /** @description Picks agents as the agent list's query parameters of the same names do (`q` for text, `labels` for `label`). */
        AgentSelector: {
            class?: components["schemas"]["ClassName"];
            /** @enum {string} */
            status?: "online" | "offline";
            manifestHash?: string;
            manifestId?: string;
            flowId?: string;
            /** Format: date-time */
            lastSeenAfter?: string;
            /** Format: date-time */
            lastSeenBefore?: string;
            q?: string;
            labels?: components["schemas"]["LabelSelector"];
            /** @description The agents a group picks now (with the selector's other fields, AND-ed). */
            group?: components["schemas"]["ClassName"];
        };
        /** @description For one agent (`agentId`) or for every agent a selector picks, as the agent list would, with no cap: the selection is read and queued a thousand agents at a time. Every agent's manifest must list the operation and operand, or nothing is created (409); past the first thousand agents of a selection, an agent that cannot take it is skipped and named in the answer instead. Operations are also gated by agent type and version (a MiNiFi Java agent drops a whole reply it cannot parse); the 409 names each refused agent with why. */
        OperationRequest: {
            agentId?: string;
            selector?: {
                class: components["schemas"]["ClassName"];
            } & WithRequired<components["schemas"]["AgentSelector"], "class">;
            /**
             * @description With `operand`: DESCRIBE MANIFEST, DESCRIBE METRICS, DESCRIBE CONFIGURATION, DESCRIBE JSTACK, DESCRIBE CORECOMPONENTSTATE, UPDATE PROPERTIES, UPDATE CONFIGURATION, UPDATE ASSET, SYNC RESOURCE, START/STOP FLOW, START/STOP PROCESSOR, START/STOP of a C++ component (its id or name, `FlowController`, `c2`), RESTART, CLEAR CONNECTION, CLEAR REPOSITORIES, CLEAR CORECOMPONENTSTATE, TRANSFER DEBUG, PAUSE, RESUME. TRANSFER DEBUG takes no args: Beacon sends the agent its upload target. DESCRIBE METRICS, CONFIGURATION, JSTACK and CORECOMPONENTSTATE, CLEAR REPOSITORIES and CORECOMPONENTSTATE and START/STOP of a component are MiNiFi C++ only; START/STOP PROCESSOR needs MiNiFi Java 2.7 or later (see the README's table).
             * @enum {string}
             */
            operation: "DESCRIBE" | "UPDATE" | "START" | "STOP" | "RESTART" | "CLEAR" | "PAUSE" | "RESUME" | "SYNC" | "TRANSFER";
            /** @description MANIFEST, METRICS, CONFIGURATION, JSTACK, CORECOMPONENTSTATE, PROPERTIES, ASSET, RESOURCE, FLOW, PROCESSOR, CONNECTION, REPOSITORIES, DEBUG; for START and STOP also a C++ component's id or name, `FlowController` or `c2`. */
            operand?: string;
            /** @description Must be true for what cannot be undone: START or STOP `c2` (the C++ agent ends itself with SIGTERM) and CLEAR REPOSITORIES (destroys the data the agent holds queued). Without it they are refused with 400 `confirmation_required`. */
            confirm?: boolean;
            /**
             * @description For agents whose class's maintenance windows (`PUT /classes/{name}`) are closed now: `wait` (the default) creates the operations held until the windows open next (`notBefore`), when the sweeper releases them to their agents; `refuse` creates nothing and answers 409 `outside_window` with when they open.
             * @enum {string}
             */
            outsideWindow?: "wait" | "refuse";
            /** @description Agents take strings only: a number or boolean is sent as its string (`30` as `"30"`, `true` as `"true"`). The one object form is MiNiFi C++ UPDATE PROPERTIES' `{"value": "<string>", "persist": <boolean>}` per property, refused (409) for other agent types. UPDATE PROPERTIES: property name → value. CLEAR CONNECTION, CLEAR CORECOMPONENTSTATE: the values are the connection or component ids. START/STOP PROCESSOR: `processorId` (required). DESCRIBE METRICS: `metricsClass` (optional). Other operations take none (UPDATE CONFIGURATION's are built from `flowHash`). UPDATE ASSET: `forceDownload`, "true" or "false" (the other args are built from `assetId`). SYNC RESOURCE: none, the class's resource set is sent. */
            args?: {
                [key: string]: string | number | boolean | {
                    value: string;
                    persist?: boolean;
                };
            };
            /** @description Operations of the same agent (`agentId` only) that must be done first; if one of them fails, this one is cancelled. */
            dependsOn?: string[];
            /** @description UPDATE CONFIGURATION only (and required there): the flow version to run, of the agents' class (the selector's class, or the agent's) unless `flowClass` names another. Beacon sends the agents `location` (the version's download URL on the agent API) and `flowId` (the hash). */
            flowHash?: string;
            /** @description The class whose flow version `flowHash` names, when not the agents' own. */
            flowClass?: components["schemas"]["ClassName"];
            /** @description UPDATE ASSET only (and required there): the asset to send; Beacon sends `file` (its name), `url` (its download on the agent API) and `forceDownload`. */
            assetId?: string;
        };
        FlowVersion: {
            /** @description SHA-256 of the bytes as uploaded; the flow id agents get. */
            hash: string;
            className: string;
            /**
             * @description `nifi-json`: a `rootGroup` layout (MiNiFi Java `flow.json`, or C++ JSON in that layout). `minifi-json`, `minifi-yaml`: the MiNiFi C++ configuration layout.
             * @enum {string}
             */
            format: "nifi-json" | "minifi-json" | "minifi-yaml";
            /** @enum {string} */
            contentType: "application/json" | "application/yaml";
            sizeBytes: number;
            gzipBytes: number;
            processorTypes: string[];
            controllerServiceTypes: string[];
            /** Format: date-time */
            createdAt: string;
            createdBy: string;
            /** @description The assets the flow names (`@{asset-id:<id>}`): an UPDATE CONFIGURATION of it waits for the SYNC RESOURCE that brings them. */
            assetIds: string[];
            /** @description For a version adopted from what the class's agents ran: the flow id they report for it, which the class's policy accepts as this version. */
            adoptedFlowId?: string;
            /** @description The parameters the flow's parameter contexts declare, by name. Absent on versions stored before Beacon read them; their validation report lists them. */
            parameters?: components["schemas"]["FlowParameter"][];
            /** @description Its number in its class, 1 for the first, in publish order (publishing the same bytes again keeps it); absent for a version stored before Beacon numbered versions. */
            version?: number;
            label?: components["schemas"]["FlowLabel"];
        };
        /** @description A parameter a flow declares in its parameter contexts (`parameterContexts`, `Parameter Contexts`). Declared in several, it is sensitive when any declares it so; its description and default come from its first declaration. */
        FlowParameter: {
            name: string;
            sensitive: boolean;
            description?: string;
            /** @description The flow's own value; never given for a sensitive parameter. */
            default?: string;
        };
        /** @description A property of a processor or controller service that references a parameter (`#{name}`). */
        ParameterReferenceSite: {
            parameter: string;
            /** @enum {string} */
            component: "processor" | "controller service";
            /** @description The component's name, or its id when it has none. */
            componentName: string;
            property: string;
        };
        FlowVersionList: {
            items: components["schemas"]["FlowVersion"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        FlowValidation: {
            flowHash: string;
            className: string;
            processorTypes: string[];
            controllerServiceTypes: string[];
            /** @description The parameters the version's document declares. */
            parameters: components["schemas"]["FlowParameter"][];
            /** @description References to parameters that no parameter context of their process group declares (with those it inherits). Publishing refuses such a flow; only versions stored before that can have them. */
            undeclaredParameters: components["schemas"]["ParameterReferenceSite"][];
            /** @description Every agent of the class could run the flow. */
            compatible: boolean;
            agentCount: number;
            incompatibleAgentCount: number;
            /** @description The class has more than 5,000 agents: the report covers the first 5,000. */
            truncated: boolean;
            manifests: {
                /** @description The binary; absent for the agents whose manifest Beacon does not know (yet). */
                manifestId?: string;
                manifestKnown: boolean;
                compatible: boolean;
                missingProcessorTypes?: string[];
                missingControllerServiceTypes?: string[];
                /** @description For a binary Beacon knows: the flow's own parameter values that a processor property allowing only listed values (its descriptor's `allowableValues`) would refuse, the property's value taken with the values in. Sensitive parameters, which have no value here, are passed over. */
                valuesRefused?: {
                    parameter: string;
                    processorType: string;
                    property: string;
                    /** @description The property's value with the parameters' values in. */
                    value: string;
                    allowed: string[];
                }[];
                agentCount: number;
                /** @description The agents of this binary (the first 100); when it is not compatible, these could not run the flow. */
                agentIds: string[];
            }[];
        };
        /** @description A share of agents: a number of them, or a percent of a whole, to a hundredth at the finest (rounded up, so never zero agents). */
        Share: {
            count: number;
        } | {
            percent: number;
        };
        RolloutPlan: {
            /** @description The first group, of the class's agents when the rollout started; it must be healthy before batches begin. */
            canary: components["schemas"]["Share"];
            /** @description Agents per batch after the canary. */
            batchSize: number;
            /** @description Least time between the starts of two batches. */
            batchIntervalSeconds: number;
            /** @description How long an updated agent must keep heartbeating on the new flow, without new ERROR bulletins, to count as healthy. */
            soakSeconds: number;
            /** @description Failed agents (a count, or a percent of the agents updated so far) at which the rollout stops. */
            failureThreshold: components["schemas"]["Share"];
            /**
             * @description What reaching the threshold does: pause the rollout, or return the agents it updated to the previous version (a class without one pauses).
             * @enum {string}
             */
            onFailure: "pause" | "rollback";
        };
        /** @description Only the class's agents this selector picks (as POST /operations' selector, without `class` and `group`: the rollout's `className` and `group`), evaluated at each batch. */
        RolloutSelector: components["schemas"]["AgentSelector"];
        /** @description Either `flowHash` (a version) or `stagedValues` (the class's staged value changes). With `group` or `selector` (not both) it takes only some of the class's agents and leaves the class's target as it is. */
        RolloutRequest: {
            className: components["schemas"]["ClassName"];
            /** @description Only the class's agents that are this group's members, evaluated at each batch. Each agent it updates is held on the new version by an assignment over the class's target, until that target changes. A missing group is a 404; one whose query names other classes, a 400. */
            group?: components["schemas"]["ClassName"];
            selector?: components["schemas"]["RolloutSelector"];
            /** @description With `group` or `selector`: once it has passed the class it is `following`, adding agents that join the group (or come to match the selector) until it is finished (POST /rollouts/{rolloutId}/finish) or aborted. It holds its class as a rollout under way does. */
            continuous?: boolean;
            /** @description A flow version of the class. */
            flowHash?: string;
            /** @description Roll out the class's staged value changes instead of a version: frozen as they are when it starts, they render the class's target version anew, and go only to the agents whose rendered flow they change (an agent whose own value overrides a changed parameter is passed over). Completion puts them in force as the class's values; a rollback returns members to the values in force. */
            stagedValues?: boolean;
            /** @description Fields left out take Beacon's defaults: a canary of 5 percent, batches of 100 agents every 10 s, 120 s of soak, a failure threshold of 5 percent, rollback. */
            plan?: {
                /** @description The first group, of the class's agents when the rollout started; it must be healthy before batches begin. */
                canary?: components["schemas"]["Share"];
                /** @description Agents per batch after the canary. */
                batchSize?: number;
                /** @description Least time between the starts of two batches. */
                batchIntervalSeconds?: number;
                /** @description How long an updated agent must keep heartbeating on the new flow, without new ERROR bulletins, to count as healthy. */
                soakSeconds?: number;
                /** @description Failed agents (a count, or a percent of the agents updated so far) at which the rollout stops. */
                failureThreshold?: components["schemas"]["Share"];
                /**
                 * @description What reaching the threshold does: pause the rollout, or return the agents it updated to the previous version (a class without one pauses).
                 * @enum {string}
                 */
                onFailure?: "pause" | "rollback";
            };
            /**
             * @description Start even when the dry run (the version's validation) finds agents of the class whose manifests lack types the flow uses.
             * @default false
             */
            allowIncompatible: boolean;
            /**
             * Format: date-time
             * @description When it starts, at most 90 days ahead: until then it is scheduled (after its approval, when its class requires one) and the sweeper starts it at its next run after the time. Absent or past, it starts at once.
             */
            startAt?: string;
        };
        /**
         * @description awaiting_approval (its class requires approval: it waits for an operator other than its creator) → scheduled (its startAt is ahead: the sweeper starts it then) → canary (the first group updates) → rolling (batch after batch) → completed, or for a continuous rollout following (it has passed its class and adds agents that join its group or selector, until finished → completed); a waiting rollout touches neither its class nor its agents, and ends refused when refused or withdrawn. paused holds (a person, or the failure threshold with onFailure pause); rolling_back returns the updated agents to the previous version → rolled_back, or aborted when a person aborted it. completed, rolled_back, aborted and refused are final.
         * @enum {string}
         */
        RolloutState: "awaiting_approval" | "scheduled" | "canary" | "rolling" | "following" | "paused" | "rolling_back" | "completed" | "rolled_back" | "aborted" | "refused";
        /** @description Agents per state, over every batch. Every selected agent is in exactly one of updating, soaking, healthy, failed, rollingBack, rolledBack and rollbackFailed, except that an agent that failed and was rolled back since counts in failed as well as in its rollback count. */
        RolloutCounts: {
            /** @description Agents the rollout sent the new version to. */
            selected: number;
            /** @description Waiting for the update's acknowledgement and the new flow id in a heartbeat. */
            updating: number;
            /** @description On the new flow, watched for the soak time. */
            soaking: number;
            healthy: number;
            /** @description Agents that failed the health gate (the update not applied or not acknowledged, another flow id reported, a new ERROR bulletin, silence), for good: one a rollback returned to the previous version since stays counted here, beside the rollback count it is in. The failure threshold counts these, less those a person accepted by resuming. */
            failed: number;
            /** @description Agents of the class passed over: offline, on the version already, or unable to take UPDATE CONFIGURATION. */
            skipped: number;
            /** @description Agents sent the previous version back, waiting for its acknowledgement. */
            rollingBack: number;
            /** @description Agents back on the previous version, or whose update was cancelled before delivery. */
            rolledBack: number;
            /** @description Agents whose return to the previous version did not complete: not applied, timed out or cancelled. */
            rollbackFailed: number;
        };
        Rollout: {
            rolloutId: string;
            className: string;
            /** @description The group whose members of the class it takes; absent with neither a group nor a selector: the whole class. */
            group?: string;
            selector?: components["schemas"]["RolloutSelector"];
            /** @description It follows its group or selector once it has passed its class, until finished. */
            continuous?: boolean;
            /** @description The class's flow before: what a rollback returns agents to. Absent when the class had none. */
            fromFlow?: string;
            /** @description The flow version rolled out. */
            toFlow: string;
            /** @description It rolls out the class's staged values to its target version (`fromFlow` and `toFlow` alike), not a version. */
            stagedValues?: boolean;
            state: components["schemas"]["RolloutState"];
            /**
             * @description While paused: the state resuming returns to.
             * @enum {string}
             */
            resumeTo?: "canary" | "rolling" | "following";
            /** @description Why it paused, rolls back, was aborted or refused. */
            reason?: string;
            /**
             * Format: date-time
             * @description When it starts, when asked for.
             */
            startAt?: string;
            /** @description The operator (another than its creator) who approved it, when its class requires approval. */
            approvedBy?: string;
            /** Format: date-time */
            approvedAt?: string;
            /** @description Who refused it before it started: another operator, its creator withdrawing it, or `beacon` when its checks failed at its start time. */
            refusedBy?: string;
            /**
             * Format: date-time
             * @description While the next batch (or the completion, whose policy catch-up sends) waits for the class's maintenance windows: when they open next. The sweeper's regular look starts it then; the health gate and a rollback never wait.
             */
            waitingForWindow?: string;
            plan: components["schemas"]["RolloutPlan"];
            /** @description Agents in the class (or in its group or selector) when the rollout started. */
            classSize: number;
            canarySize: number;
            /** @description Batches started, the canary included. */
            batches: number;
            /** Format: date-time */
            lastBatchAt?: string;
            /** @description Every agent of the class has been considered. */
            exhausted: boolean;
            counts: components["schemas"]["RolloutCounts"];
            /** Format: date-time */
            createdAt: string;
            /** @description The subject of the token that started it. */
            createdBy: string;
            /** Format: date-time */
            updatedAt: string;
            /** Format: date-time */
            finishedAt?: string;
            fromVersion?: components["schemas"]["FlowVersionName"];
            toVersion?: components["schemas"]["FlowVersionName"];
            /** @description How often the deployment's sweeper runs (60 on AWS). A batch starts, an agent that runs the new version starts soaking, and a soaked one counts as healthy only at one of its runs: this paces the rollout as much as its plan does. */
            sweeperIntervalSeconds: number;
        };
        RolloutList: {
            items: components["schemas"]["Rollout"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        /**
         * @description updating (waiting for the acknowledgement and the new flow id) → soaking → healthy | failed; in a rollback → rolling_back → rolled_back | rollback_failed.
         * @enum {string}
         */
        RolloutAgentState: "updating" | "soaking" | "healthy" | "failed" | "rolling_back" | "rolled_back" | "rollback_failed";
        RolloutAgent: {
            agentId: string;
            /** @description 0 for the canary. */
            batch: number;
            state: components["schemas"]["RolloutAgentState"];
            /** @description The UPDATE CONFIGURATION that carries the new version. */
            operationId: string;
            /** @description The flow id the agent reported when selected. */
            previousFlowId?: string;
            /** @description Of an agent `updating`: whether it reports the new version now, as the cache has its last heartbeat. The rollout counts it as soaking from the sweeper's next run. Absent while the cache cannot be read. */
            runsNewVersion?: boolean;
            /** Format: date-time */
            selectedAt: string;
            /** Format: date-time */
            soakingSince?: string;
            /** Format: date-time */
            settledAt?: string;
            /** @description The UPDATE CONFIGURATION back to the previous version. */
            rollbackOperationId?: string;
            /** @description Why it failed, or how its rollback ended. */
            reason?: string;
        };
        RolloutAgentList: {
            items: components["schemas"]["RolloutAgent"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        Asset: {
            /** @description SHA-256 of the bytes: the `resourceId` agents get, and what flows name as `@{asset-id:<id>}`. */
            assetId: string;
            /** @description The file name agents keep it under. */
            name: string;
            sizeBytes: number;
            /** @description As the upload declared it; agents' downloads carry it. */
            contentType: string;
            /** Format: date-time */
            createdAt: string;
            createdBy: string;
            /** @description The classes whose resource set holds the asset. */
            usedBy: string[];
        };
        AssetUploadStart: {
            /** @description The file name agents keep the asset under: 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit, without `..`. */
            name: string;
            /** @description The asset's size in bytes, 1 to 104,857,600 (100 MiB): more is refused with 413. */
            sizeBytes: number;
            /** @description The bytes' SHA-256, lower-case hex: the asset's id once the bytes are checked to have it. */
            sha256: string;
            /** @description The media type agents' downloads carry (`application/octet-stream` when in doubt; not a form's). */
            contentType: string;
        };
        AssetUpload: {
            /** @description Names the upload to complete or abort it. */
            uploadId: string;
            name: string;
            sizeBytes: number;
            sha256: string;
            contentType: string;
            /** @description Each part's size but the last, which holds the rest (8,388,608: 8 MiB). */
            partBytes: number;
            parts: components["schemas"]["AssetUploadPart"][];
            /**
             * Format: date-time
             * @description When the part URLs stop taking parts: an hour after the start at most, never after the credentials that signed them expire.
             */
            expiresAt: string;
        };
        AssetUploadPart: {
            partNumber: number;
            /** @description The part's bytes: from byte (partNumber - 1) × partBytes of the asset, this many. */
            sizeBytes: number;
            /**
             * Format: uri
             * @description Presigned: a plain HTTP PUT of the part's bytes stores it, until expiresAt.
             */
            url: string;
        };
        AssetUploadPartsRequest: {
            /** @description The parts to sign again, each once: numbers from 1 to the upload's part count (13 for 100 MiB). */
            partNumbers: number[];
        };
        AssetUploadParts: {
            uploadId: string;
            /** @description The parts asked for, in the order asked, each with its new URL. */
            parts: components["schemas"]["AssetUploadPart"][];
            /**
             * Format: date-time
             * @description When the new URLs stop taking parts: an hour on at most, never after the credentials that signed them expire.
             */
            expiresAt: string;
        };
        AssetUploadAborted: {
            uploadId: string;
            /** @constant */
            aborted: true;
        };
        AssetList: {
            items: components["schemas"]["Asset"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        /** @description The whole set: agents delete resources it does not list. At most 40 assets, each once, no two at the same path and name. */
        ResourceSetRequest: {
            items: {
                assetId: string;
                /** @description The folder in the agent's asset directory, relative, no segment starting with a dot (no `..`); "" (the default) for the directory itself. */
                path?: string;
            }[];
        };
        ResourceSet: {
            className: string;
            items: {
                assetId: string;
                name: string;
                path: string;
            }[];
            /** @description SHA-256 of the set: SYNC RESOURCE's `globalHash.digest`, which agents that hold the set report as `resourceInfo.hash`. */
            digest: string;
            /** @enum {string} */
            hashType: "SHA-256";
            /** Format: date-time */
            updatedAt: string;
            updatedBy: string;
        };
        ResourceSetPush: {
            className: string;
            items: {
                assetId: string;
                name: string;
                path: string;
            }[];
            /** @description SHA-256 of the set: SYNC RESOURCE's `globalHash.digest`, which agents that hold the set report as `resourceInfo.hash`. */
            digest: string;
            /** @enum {string} */
            hashType: "SHA-256";
            /** Format: date-time */
            updatedAt: string;
            updatedBy: string;
            /** @description The SYNC RESOURCE queued for each agent of the class that does not report the set's digest. The first 1,000 when there are more. */
            operations: components["schemas"]["Operation"][];
            /** @description Agents of the class that cannot take SYNC RESOURCE, each with why. The first 1,000 when there are more. */
            skipped: {
                agentId: string;
                reason: string;
            }[];
            /** @description How many SYNC RESOURCE were queued, when `operations` or `skipped` does not list them all. */
            created?: number;
            /** @description How many agents were skipped, when `operations` or `skipped` does not list them all. */
            skippedCount?: number;
        };
        Usage: {
            /** Format: date-time */
            from: string;
            /**
             * Format: date-time
             * @description Exclusive.
             */
            to: string;
            hours: components["schemas"]["UsageHour"][];
            totals: components["schemas"]["UsageCounts"];
            /** @description What the tenant stored, one snapshot a day (the sweeper's, at most once a day) for each day the range touches that has one, by day. */
            storedDays: components["schemas"]["UsageStoredDay"][];
        };
        UsageStoredDay: {
            /**
             * Format: date-time
             * @description The day's start (UTC).
             */
            day: string;
            /** Format: date-time */
            takenAt: string;
            manifests: components["schemas"]["UsageStoredCount"];
            flowVersions: components["schemas"]["UsageStoredCount"];
            assets: components["schemas"]["UsageStoredCount"];
            debugBundles: components["schemas"]["UsageStoredCount"];
            archive: {
                /** @description Bytes of the tenant's event archive objects (gzip), as the bucket lists them. */
                bytes: number;
            };
        };
        UsageStoredCount: {
            count: number;
            /** @description As stored: manifests and flow contents gzipped (a flow content once however many classes publish it), assets and debug bundles as uploaded. */
            bytes: number;
        };
        UsageStatement: {
            /** @description `YYYY-MM`. */
            month: string;
            /** Format: date-time */
            from: string;
            /**
             * Format: date-time
             * @description Exclusive: the next month's start.
             */
            to: string;
            /** @enum {string} */
            currency: "USD";
            pricedAs: {
                /**
                 * @description The capacity model's way of running the agent API whose unit prices apply.
                 * @enum {string}
                 */
                option: "httpApiLambda" | "albLambda" | "albFargate" | "nlbFargate";
                /** @description The fleet whose modelled month the unit prices come from (agents, intervalSeconds, javaShare, hoursPerMonth, pricesTakenOn). */
                reference: {
                    [key: string]: unknown;
                };
                /** @description The units whose price the deployment set instead of the model's. */
                overridden: string[];
            };
            lines: components["schemas"]["UsageStatementLine"][];
            /** @description USD, the lines' amounts added, unrounded. */
            total: number;
            /** @description The month's usage, the priced units and the rest. */
            usage: components["schemas"]["UsageCounts"] & {
                agentHours: number;
                /** @description GB-months (GiB) stored in DynamoDB: manifests and flow versions, each day's snapshot a day of the month. */
                tableGbMonths: number;
                /** @description GB-months (GiB) stored in S3: assets, debug bundles and the event archive, each day's snapshot a day of the month. */
                bucketGbMonths: number;
            };
        };
        UsageStatementLine: {
            /** @enum {string} */
            unit: "agentHours" | "heartbeats" | "bytesOut" | "downloadBytes" | "tableGbMonths" | "bucketGbMonths";
            description: string;
            quantity: number;
            /** @description USD per unit. */
            unitPrice: number;
            /** @description USD: quantity × unitPrice, unrounded. */
            amount: number;
        };
        UsageHour: components["schemas"]["UsageCounts"] & {
            /**
             * Format: date-time
             * @description The hour's start.
             */
            hour: string;
        };
        UsageCounts: {
            /** @description Distinct agents that heartbeat or acknowledged: exact for a few hundred agents, within about 3 % for many thousands (a HyperLogLog sketch, which a redelivered event cannot change). */
            activeAgents: number;
            /** @description Heartbeats accepted. */
            heartbeats: number;
            /** @description Acknowledgements received. */
            acknowledgements: number;
            /** @description Operations created. */
            operations: number;
            /** @description Bytes of the heartbeats' and acknowledgements' request bodies as they came over the wire (compressed where the agent compressed them). */
            bytesIn: number;
            /** @description Bytes of the heartbeats' and acknowledgements' reply bodies. */
            bytesOut: number;
            /** @description Flows and assets agents downloaded from the agent API (answered 200; a 304 counts none), and links to assets and debug bundles the console API granted operators (each counted when granted). */
            downloads: number;
            /** @description Bytes of the flows and assets agents downloaded (the responses' bodies), and of the assets and debug bundles whose links operators were granted (each whole). */
            downloadBytes: number;
            /** @description Debug bundles agents uploaded that Beacon stored (answered 201; a refused upload counts none). */
            uploads: number;
            /** @description Bytes of the debug bundles agents uploaded, as received (the form's part holding each). */
            uploadBytes: number;
        };
        FleetHistory: {
            /** @description The class asked for; absent for the whole fleet. */
            class?: string;
            /** Format: date-time */
            from: string;
            /**
             * Format: date-time
             * @description Exclusive.
             */
            to: string;
            stepSeconds: number;
            points: components["schemas"]["FleetHistoryPoint"][];
        };
        FleetHistoryPoint: {
            /**
             * Format: date-time
             * @description The point's first minute.
             */
            at: string;
            /** @description Heartbeats accepted. */
            heartbeats: number;
            /** @description Distinct agents that heartbeat in the point's minutes: exact for small classes, within about 3 % for thousands of agents (a HyperLogLog sketch, which a redelivered event cannot change). */
            agentsSeen: number;
            /** @description Agents seen for the first time (registered). */
            registrations: number;
            /** @description Operations created (queued). */
            operationsQueued?: number;
            /** @description Operations delivered to their agents in a heartbeat's reply. */
            operationsDelivered?: number;
            /** @description Operations cancelled before they were delivered. */
            operationsCancelled?: number;
            /** @description Operations that became done. */
            operationsDone?: number;
            /** @description Operations that failed. */
            operationsFailed?: number;
            /** @description Operations that timed out. */
            operationsTimedOut?: number;
            /** @description State changes of rollouts (of the class's rollouts, with `class`). */
            rolloutTransitions: number;
            /** @description New ERROR bulletins: an agent lists its recent bulletins again in every heartbeat, and each counts once, in the minute of the first heartbeat that lists it (told by its id, which agents number in order); with the cache unreachable, or for bulletins without ids, every one a heartbeat lists counts. */
            errorBulletins: number;
            /** @description Agents announced offline (`agent.offline`): silent for 3 heartbeat periods, counted in the minute the sweeper found them. */
            agentsWentOffline: number;
            /** @description Agents announced offline that heartbeat again (`agent.online`). */
            agentsCameOnline: number;
        };
        /** @description One event as Beacon put it on the stream (schemas/events/), without its tenant and version, `at` as a time. */
        AgentEvent: {
            /** @enum {string} */
            type: "heartbeat" | "ack" | "operation" | "certificate.expiring" | "agent.offline" | "agent.online" | "agent.decommissioned";
            eventId: string;
            agentId: string;
            /** Format: date-time */
            at: string;
        };
        AgentEventList: {
            items: components["schemas"]["AgentEvent"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        AuditRecord: {
            /**
             * Format: date-time
             * @description When the request arrived.
             */
            at: string;
            /** @description API Gateway's id of the request (the `apigw-requestid` response header). */
            requestId: string;
            actor: {
                /** @description The token's subject (`sub`). */
                subject: string;
                /** @enum {string} */
                role: "viewer" | "operator" | "admin";
                /** @description The classes the token limited the role to (`custom:classes`); absent for a principal of the whole tenant. */
                classes?: components["schemas"]["ClassName"][];
            };
            /** @description The operation of this document the request was for. */
            operationId: string;
            method: string;
            /** @description The operation's path, as this document spells it: `/api/v1/classes/{className}`. */
            route: string;
            /** @description The request's path parameters: what it acted on. */
            target: {
                [key: string]: string;
            };
            /** @description The HTTP status it was answered with. */
            status: number;
            /** @description Beacon's error code, when it was refused or failed. */
            errorCode?: string;
            sourceIp?: string;
            userAgent?: string;
            /** @description For some operations: the settings, names and created ids an operator reviews (a class's settings, an operation's type and target, a rollout's flows and plan, an issued certificate's serial). Never content, keys or secrets. */
            summary?: Record<string, never>;
        };
        AuditRecordList: {
            items: components["schemas"]["AuditRecord"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        /**
         * @description A notification type: `agent.offline`, `agent.online`, `agent.decommissioned` (a silent agent cleaned up), `agent.registered`; `operation.<state>` and `rollout.<state>` for the state an operation or a rollout entered; `certificate.expiring`; `webhook.disabled` (a subscription that kept failing was switched off); `webhook.test` (what the test route sends). Or a family of them: `operation.*`.
         * @enum {string}
         */
        NotificationTypePattern: "agent.offline" | "agent.online" | "agent.decommissioned" | "agent.registered" | "operation.queued" | "operation.delivered" | "operation.awaiting_effect" | "operation.done" | "operation.failed" | "operation.timed_out" | "operation.cancelled" | "rollout.awaiting_approval" | "rollout.scheduled" | "rollout.canary" | "rollout.rolling" | "rollout.following" | "rollout.paused" | "rollout.rolling_back" | "rollout.completed" | "rollout.rolled_back" | "rollout.aborted" | "rollout.refused" | "certificate.expiring" | "webhook.disabled" | "webhook.test" | "agent.*" | "operation.*" | "rollout.*" | "certificate.*" | "webhook.*";
        SubscriptionRequest: {
            /** @description Where deliveries are posted: an `https` URL without credentials or fragment, naming a public host or address. Never a private, loopback or link-local address, neither as given nor as its name resolves when a delivery is made. */
            url: string;
            /** @description The notification types to deliver; each is kept once. */
            eventTypes: components["schemas"]["NotificationTypePattern"][];
            /** @description Only notifications of this agent class: an agent's, a rollout's to it, and an operation's or a certificate's whose agent is of it (its events name no class: Beacon looks the agent's class up when it reads the event). */
            agentClass?: components["schemas"]["ClassName"];
            description?: string;
        };
        SubscriptionFields: {
            subscriptionId: string;
            url: string;
            eventTypes: components["schemas"]["NotificationTypePattern"][];
            agentClass?: components["schemas"]["ClassName"];
            description?: string;
            /**
             * @description disabled: its deliveries kept failing, and Beacon stopped making them (a `webhook.disabled` notification says so).
             * @enum {string}
             */
            state: "active" | "disabled";
            /** Format: date-time */
            createdAt: string;
            /** @description Subject of the token that created it. */
            createdBy: string;
            /** Format: date-time */
            disabledAt?: string;
            disabledReason?: string;
        };
        Subscription: components["schemas"]["SubscriptionFields"];
        CreatedSubscription: {
            /** @description The key deliveries are signed with (`whsec_` and 32 random bytes, base64), as Standard Webhooks libraries take it. Returned this once: no other answer carries it. */
            secret: string;
        } & components["schemas"]["SubscriptionFields"];
        SubscriptionList: {
            items: components["schemas"]["Subscription"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        WebhookTestResult: {
            /** @description The `webhook-id` the request carried, and the notification's `id`. */
            notificationId: string;
            /** @description The receiver answered with a 2xx status. */
            delivered: boolean;
            /** @description The receiver's HTTP status; absent when none answered. */
            status?: number;
            /** @description Why no answer came: an address refused, a timeout, a TLS failure, a reset. */
            error?: string;
            durationMs: number;
        };
        /** @description One notification on its way to one subscription. Its id is its event's, and the `webhook-id` header of every attempt: a receiver de-duplicates by it. */
        WebhookDelivery: {
            deliveryId: string;
            /** @example agent.offline */
            notificationType: string;
            /** @enum {string} */
            state: "pending" | "delivered" | "failed";
            /**
             * Format: date-time
             * @description When its event happened.
             */
            createdAt: string;
            attempts: number;
            /**
             * Format: date-time
             * @description Absent once delivered or given up.
             */
            nextAttemptAt?: string;
            lastAttempt?: {
                /** Format: date-time */
                at: string;
                /** @description The receiver's HTTP status; absent when no answer came. */
                status?: number;
                /** @description Why no answer came (a refused address, a timeout, a reset), or why it was given up unsent. */
                error?: string;
                durationMs: number;
            };
            /** @description The body every attempt posts: the notification's id, type, tenant, time (`at`), class when it has one, and `data`. */
            notification: Record<string, never>;
        };
        WebhookDeliveryList: {
            items: components["schemas"]["WebhookDelivery"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        /** @description A debug bundle an agent uploaded for a TRANSFER DEBUG operation: the gzip tar (`debug.tar.gz`) of its flow, configuration and logs. */
        DebugBundle: {
            /** @description The TRANSFER DEBUG operation it answers. */
            operationId: string;
            agentId: string;
            /** @description Its size in bytes. */
            bytes: number;
            /** Format: date-time */
            storedAt: string;
            /**
             * Format: date-time
             * @description Served until then (1 day after it was stored unless the deployment sets other days), then 410; the bucket's lifecycle deletes it after.
             */
            expiresAt: string;
        };
        DebugBundleList: {
            items: components["schemas"]["DebugBundle"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        RunningFlows: {
            className: string;
            /** @description Agents of the class in the registry. */
            agentCount: number;
            /** @description Agents reporting no flow id. */
            withoutFlow: number;
            flows: components["schemas"]["RunningFlow"][];
        };
        RunningFlow: {
            /** @description The flow id the agents report. */
            flowId: string;
            agentCount: number;
            /** @description A few of them, by agent id. */
            agentIds: string[];
            /** @description The class's version that holds the flow; absent when Beacon holds none (a flow to adopt). */
            flowHash?: string;
        };
        AdoptionRequest: {
            /** @description The flow id the class's agents report for the flow to adopt. */
            flowId: string;
            /** @description The agent to fetch the flow from; one of those reporting it, seen last, when absent. */
            agentId?: string;
        };
        Adoption: {
            adoptionId: string;
            className: string;
            /** @description The flow id the agents report, recorded on the version adopted. */
            flowId: string;
            /** @description The agent the flow is fetched from. */
            agentId: string;
            /** @description The TRANSFER DEBUG operation that fetches it; its bundle is at `GET /debug-bundles/{operationId}`. */
            operationId: string;
            /** @enum {string} */
            state: "requested" | "adopted" | "failed";
            /** @description Why it failed. */
            reason?: string;
            /** @description The version that holds the flow, once adopted. */
            flowHash?: string;
            /** @description The bundle's entry the flow was read from. */
            bundleEntry?: string;
            /** @description Once adopted: the version became the class's current one, the class having none in force. */
            current?: boolean;
            /** Format: date-time */
            createdAt: string;
            createdBy: string;
            /** Format: date-time */
            updatedAt: string;
        };
        AdoptionList: {
            items: components["schemas"]["Adoption"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        /** @description 1 to 256 characters from A-Z a-z 0-9 space . _ -, not starting or ending with a space: the names MiNiFi and NiFi take. */
        ParameterName: string;
        /** @description The value to set: text, or a reference to a secret. */
        ParameterValueRequest: {
            /** @description The value itself, at most 4,096 bytes of UTF-8. Refused for a parameter the class's flow declares sensitive. */
            value: string;
        } | {
            /** @description Where the secret is kept, never the secret: a Secrets Manager secret's full ARN (`arn:aws:secretsmanager:<region>:<account>:secret:<name>-<6 characters>`), optionally followed by `:SecretString:<json key>` for one key of a JSON secret, or `ssm:<parameter name>` for an SSM Parameter Store parameter (a SecureString). Resolved when an agent downloads its flow. */
            secretRef: string;
        };
        /** @description A value set at a layer: `value` or `secretRef`. */
        ParameterEntry: {
            name: components["schemas"]["ParameterName"];
            value?: string;
            secretRef?: string;
            /** Format: date-time */
            updatedAt: string;
            updatedBy: string;
            /** @description A change staged for a rollout of the class's staged values: not in force yet. */
            staged?: boolean;
            /** @description A staged change that removes the class's value. */
            removes?: boolean;
        };
        ParameterEntryList: {
            items: components["schemas"]["ParameterEntry"][];
            /** @description The class's changes staged for a rollout, beside the values in force in `items`; absent when none are. */
            staged?: components["schemas"]["ParameterEntry"][];
        };
        /** @description A parameter as the agent gets it. Without `layer`, nothing gives it a value. */
        EffectiveParameter: {
            name: components["schemas"]["ParameterName"];
            /** @description The class's target flow version declares it. */
            declared: boolean;
            /** @description As the flow declares it: only a `secretRef` gives it a value. */
            sensitive?: boolean;
            description?: string;
            /**
             * @description Where the value comes from: the flow's default, the class's value, the group's or the agent's own.
             * @enum {string}
             */
            layer?: "flow" | "class" | "group" | "agent";
            value?: string;
            secretRef?: string;
            /** @description For the group layer, the group whose value it is. */
            group?: components["schemas"]["ClassName"];
        };
        AgentParameters: {
            agentId: string;
            className: string;
            /** @description The class's target flow version, whose declarations are read; absent before one is published. */
            flowHash?: string;
            /** @description Each parameter the flow declares or a layer sets, by name. */
            items: components["schemas"]["EffectiveParameter"][];
            /** @description The values set for the agent itself. */
            agentValues: components["schemas"]["ParameterEntry"][];
        };
        /** @description A recurring window in the tenant's time zone (`GET /settings`): it opens on each of its days at `start` in wall-clock time (when the clocks skip that time, at the first instant after the gap; when they pass it twice, at the first) and stays open `durationMinutes` of elapsed time, across midnight and changes of the clocks alike. */
        MaintenanceWindow: {
            days: ("mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun")[];
            /** @description HH:MM, 24 hours. */
            start: string;
            durationMinutes: number;
        };
        /** @description When rollouts start batches for the class's agents and console operations reach them: only while one of these windows is open. No windows (an empty list unsets them) means always. */
        MaintenanceWindows: components["schemas"]["MaintenanceWindow"][];
        /** @description Versions from `atLeast` (inclusive) to `below` (exclusive), or `exactly` one, compared as semantic versions (numbers part by part, a pre-release such as `-SNAPSHOT` before its release). */
        VersionRange: {
            atLeast?: string;
            below?: string;
            exactly?: string;
        };
        /** @description A component the agent's binary lists in its manifest: its fully qualified type, optionally in a bundle of this group and artifact, and of a bundle version in the range. */
        ComponentCriterion: {
            /** @enum {string} */
            kind: "processor" | "controllerService";
            type: string;
            group?: string;
            artifact?: string;
            version?: components["schemas"]["VersionRange"];
        };
        /** @description An agent is a member when it meets every criterion given; a list's entries are alternatives, but `labels` and `components`, which must all hold. No criterion is the whole fleet. */
        GroupQuery: {
            /** @description Agents of any of these classes. */
            classes?: components["schemas"]["ClassName"][];
            labels?: components["schemas"]["LabelSelector"];
            /** @description The binary's `agentType` as its manifest states it (see GET /manifests). */
            agentType?: string;
            agentVersion?: components["schemas"]["VersionRange"];
            /** @description Binaries by canonical identity. */
            manifestIds?: string[];
            /** @description Components the agent's binary can run, every one. */
            components?: components["schemas"]["ComponentCriterion"][];
            flowId?: string;
            /** @description As the agent reports its device, exactly. */
            operatingSystem?: string;
            /** @description As the agent reports its device, exactly. */
            machineArch?: string;
            /** @enum {string} */
            status?: "online" | "offline";
            seenWithinMinutes?: number;
            silentForMinutes?: number;
        };
        GroupDefinition: {
            description?: string;
            query: components["schemas"]["GroupQuery"];
            /** @description Rollouts to the group wait (awaiting_approval) until an operator other than the one who created each approves it (four eyes). */
            requireApproval?: boolean;
            /** @description When the group's members may be sent console operations and rollout batches: only while one of these windows is open, and their class's too (an agent in several groups with windows waits for all of them). No windows (an empty list or none) means the group adds no limit. */
            maintenanceWindows?: components["schemas"]["MaintenanceWindows"];
            /** @description Which group's value an agent in several groups setting the same parameter gets: the highest priority's; of equal priorities, the group whose name sorts last. Absent, 0. */
            parameterPriority?: number;
        };
        GroupRequest: {
            name: components["schemas"]["ClassName"];
            description?: string;
            query: components["schemas"]["GroupQuery"];
            /** @description Rollouts to the group wait (awaiting_approval) until an operator other than the one who created each approves it (four eyes). */
            requireApproval?: boolean;
            /** @description When the group's members may be sent console operations and rollout batches: only while one of these windows is open, and their class's too (an agent in several groups with windows waits for all of them). No windows (an empty list or none) means the group adds no limit. */
            maintenanceWindows?: components["schemas"]["MaintenanceWindows"];
            /** @description Which group's value an agent in several groups setting the same parameter gets: the highest priority's; of equal priorities, the group whose name sorts last. Absent, 0. */
            parameterPriority?: number;
        };
        Group: {
            name: components["schemas"]["ClassName"];
            description?: string;
            query: components["schemas"]["GroupQuery"];
            requireApproval: boolean;
            maintenanceWindows: components["schemas"]["MaintenanceWindows"];
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /** @description The agents the query picked when the counting pass that counted the group ended (`countedAt`), or now with `count=live`; absent while the group, created or changed since the last pass, waits for the next ("counting"). */
            memberCount?: number;
            /** Format: date-time */
            countedAt?: string;
            /** @description Its rank among the groups an agent is in for parameter values it sets (see GroupDefinition). */
            parameterPriority: number;
            /** @description The parameters the group sets values for its members (GET /groups/{groupName}/parameters). */
            parameterNames: components["schemas"]["ParameterName"][];
        };
        GroupList: {
            items: components["schemas"]["Group"][];
            /** @description Pass as `cursor` for the next page; absent on the last page. */
            nextCursor?: string;
        };
        /** @description Operations by selector that a request left to the sweeper. */
        OperationSelection: {
            selectionId: string;
            /** @enum {string} */
            state: "running" | "done" | "failed";
            /** @description The selector's class. */
            className: string;
            operation: string;
            operand?: string;
            createdBy: string;
            /** Format: date-time */
            createdAt: string;
            /**
             * Format: date-time
             * @description When its last step was written.
             */
            updatedAt: string;
            /** @description How many operations were queued so far. */
            created: number;
            /** @description How many agents were skipped so far. */
            skippedCount: number;
            /** @description The first 100 agents skipped, each with why. */
            skipped: {
                agentId: string;
                reason: string;
            }[];
            /** @description Why the selection failed. */
            error?: string;
        };
        /** @description A short-lived link to a download's bytes. */
        DownloadLink: {
            /** Format: uri */
            location: string;
        };
        /**
         * @description Why an agent needs attention: `offline` (silent past its class's allowance), `errorBulletins` (an ERROR bulletin within the bulletin window: `BEACON_ERROR_BULLETIN_WINDOW_SECONDS` on the agent API, 900 seconds by default), `backPressure` (a queue at its limit, as its last heartbeat that reported queues said), `operationFailed` (its last operation failed or timed out), `offTarget` (a flow its class does not accept, nor a rollout holds it to), `pinned` (pinned to a version of its own: apart on purpose, never `offTarget`), `certificateExpiring` (its agent certificate expires soon).
         * @enum {string}
         */
        AttentionReason: "offline" | "errorBulletins" | "backPressure" | "operationFailed" | "offTarget" | "pinned" | "certificateExpiring";
        /**
         * @description The reasons the agent list filters by and the fleet counts (an expiring certificate is the certificates list's `expiring` filter).
         * @enum {string}
         */
        ListedAttentionReason: "offline" | "errorBulletins" | "backPressure" | "offTarget" | "pinned" | "operationFailed";
        FleetAttention: {
            items: {
                name: components["schemas"]["ClassName"];
                /** @description How many of the class's agents need attention for each reason; those the cache counts are absent while it cannot. */
                reasons: {
                    offline: number;
                    errorBulletins?: number;
                    backPressure?: number;
                    offTarget?: number;
                    pinned?: number;
                    operationFailed?: number;
                };
            }[];
            /** @description The tenant has more classes than were counted (1,000). */
            classesTruncated: boolean;
        };
        FleetBinaries: {
            /** @description When the counting pass that found these counts ended (epoch ms). */
            countedAt?: number;
            items: {
                className: components["schemas"]["ClassName"];
                /** @description The binary's canonical id; absent for the class's agents whose manifest Beacon does not know yet. */
                manifestId?: string;
                /** @description Agent type and version, then the start of the canonical id (`MiNiFi Java 2.3.0 · 3f9a12c`). */
                name: string;
                agentType?: string;
                version?: string;
                agents: number;
            }[];
        };
        /** @description What people call a flow version (`kafka tls`): 1 to 64 characters on one line, without spaces at either end. */
        FlowLabel: string;
        /** @description How the console names a flow version beside its hash, `v7 "kafka tls"`: its number and its label, those it has. A version stored before Beacon numbered versions has no number; the class's numbering went on after it. */
        FlowVersionName: {
            /** @description Its number in its class: 1 for the class's first version, in publish order. */
            version?: number;
            label?: components["schemas"]["FlowLabel"];
        };
        FlowLabelChange: {
            /** @description The version's new label; the empty string removes it. */
            label: string;
        };
    };
    responses: {
        /** @description A parameter or the body does not match this document, or the cursor is not one this list returned (`invalid_request`); or an operation that cannot be undone was sent without `"confirm": true` (`confirmation_required`). */
        BadRequest: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description No valid token. API Gateway's JWT authorizer refuses a missing, expired, not yet valid, badly signed token or one of another issuer or audience with its own body; a valid token without Beacon's claims (`custom:tenant`, `custom:role` one of viewer, operator, admin, `sub`) is refused by Beacon with code `unauthenticated`. */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"] | components["schemas"]["GatewayRejection"];
            };
        };
        /** @description The token's role is below the least role of the operation (`x-beacon-role`). */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The caller's tenant has no such resource. Another tenant's resources answer the same. */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The document is larger than Beacon takes (or inflates past it). */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Beacon's agent certificate authority is not configured or cannot be read. */
        Unavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request conflicts with what Beacon knows: an agent cannot take the operation (`operation_not_supported`: its manifest does not list it, or its agent type or version does not take it), or the operation is no longer queued (`operation_not_queued`), or the agents' class's maintenance windows are closed and the request chose to refuse (`outside_window`). The message says which agents or which state. */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Beacon's cache is unreachable (`cache_unavailable`): agents would not learn of new operations, so none was created. */
        CacheUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The request conflicts with the rollout or its class: the class has a rollout under way (`rollout_in_progress`), agents of the class could not run the version (`flow_incompatible`) or would lack a value for its parameters, or get one their binary refuses (`parameters_not_ready`, the report in `details`), the rollout's state does not allow the action (`rollout_state`), or the rollout kept changing while the action was applied (`rollout_conflict`, try again). The message says which. */
        RolloutConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The upload has no Content-Type, one that is no media type, or a form's (`multipart/*`, `application/x-www-form-urlencoded`): an asset is sent as its own bytes (`unsupported_media_type`). */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The same bytes are an asset under another name already (`asset_exists`: an asset is its bytes, under one name), or a class's resource set holds the asset, which cannot go while it does (`asset_in_use`). The message names the asset or the classes. */
        AssetConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The tenant has as many subscriptions as it may (`subscription_limit`, 25): delete one first. */
        SubscriptionLimit: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The webhook dispatcher, which posts tests from where receivers can be reached, failed or did not answer in time (`webhook_tester_unavailable`): whether the receiver got the test is unknown. */
        WebhookTesterUnavailable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The class or agent holds as many values as it may (`parameter_limit`, 100): delete one first; or with the value set, agents of the class would be left with a flow they cannot run (`parameters_not_ready`): a parameter the version declares gets no value for some (`details.missing`), or a value their binary's processors refuse (`details.refused`); nothing is written. */
        ParameterConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description Without the value, agents of the class would be left with a flow they cannot run (`parameters_not_ready`): a parameter the version declares gets no value for some (`details.missing`), or a value their binary's processors refuse (`details.refused`); nothing is written. */
        ParametersNotReady: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description The tenant has a group of that name already (`group_exists`). */
        GroupConflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: {
        /** @description The `nextCursor` of the previous page. */
        Cursor: string;
        /** @description Page size, at most 100. */
        Limit: number;
        AgentId: string;
        /** @description A class name (see the `ClassName` schema). */
        ClassName: components["schemas"]["ClassName"];
        /**
         * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
         * @example edge-gateways
         */
        FlowClassName: components["schemas"]["ClassName"];
        /** @description The binary's canonical identity: the SHA-256 of its manifest's content without the per-agent fields, keys and arrays sorted, leaves as strings. */
        ManifestId: string;
        /** @description Hex; case and leading zeros do not matter. A certificate of a tenant's own CA is named by its serial qualified by its CA, `<CA id>.<serial>`, as its record lists it. */
        Serial: string;
        /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
        OperationId: string;
        /**
         * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
         * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
         */
        FlowHash: string;
        RolloutId: string;
        /**
         * @description The asset's id: the SHA-256 of its bytes, lower-case hex. The example is the id of the upload example.
         * @example fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264
         */
        AssetId: string;
        /**
         * @description The file name agents keep the asset under: 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit, without `..` (no folders, no hidden files, no way out of the agent's asset directory).
         * @example pump-calibration.txt
         */
        AssetName: string;
        /** @description `false` answers 200 with the link in the body instead of redirecting: for a web page, which cannot read a redirect's `Location` and whose Content-Security-Policy keeps its requests on its own origin, and so navigates to the link instead. */
        DownloadRedirect: boolean;
        /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
        UploadId: string;
        /**
         * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
         * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
         */
        SubscriptionId: string;
        /**
         * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
         * @example kafka.brokers
         */
        ParameterName: components["schemas"]["ParameterName"];
        /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
        GroupName: components["schemas"]["ClassName"];
        /** @description As the 202 of `POST /operations` named it. */
        SelectionId: string;
        /** @description A label for the version, as `PUT …/flows/{hash}/label` sets it; ignored when the class has the version already (its label stays). */
        FlowLabel: components["schemas"]["FlowLabel"];
    };
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getOpenApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    listClasses: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of classes, by name. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentClassList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getClass: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A class name (see the `ClassName` schema). */
                className: components["parameters"]["ClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The class. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentClass"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    putClass: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A class name (see the `ClassName` schema). */
                className: components["parameters"]["ClassName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AgentClassChange"];
            };
        };
        responses: {
            /** @description Updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentClass"];
                };
            };
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentClass"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    listFlows: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of flow versions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowVersionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    uploadFlow: {
        parameters: {
            query?: {
                /** @description A label for the version, as `PUT …/flows/{hash}/label` sets it; ignored when the class has the version already (its label stays). */
                label?: components["parameters"]["FlowLabel"];
                /** @description `true` publishes the version only if every agent of the class could run it, by the same validation as `GET …/flows/{hash}/validation` and a rollout's: otherwise 409 `flow_incompatible`, each problem in `details.problems` and the whole report in `details.validation`, and nothing is stored. The web console's designer saves this way. */
                requireCompatible?: boolean;
            };
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "encodingVersion": {
                 *         "majorVersion": 2,
                 *         "minorVersion": 0
                 *       },
                 *       "maxTimerDrivenThreadCount": 1,
                 *       "controllerServices": [],
                 *       "rootGroup": {
                 *         "identifier": "root",
                 *         "name": "root",
                 *         "processors": [
                 *           {
                 *             "identifier": "generate",
                 *             "name": "GenerateFlowFile",
                 *             "type": "org.apache.nifi.processors.standard.GenerateFlowFile",
                 *             "bundle": {
                 *               "group": "org.apache.nifi",
                 *               "artifact": "nifi-standard-nar",
                 *               "version": "2.3.0"
                 *             },
                 *             "properties": {},
                 *             "schedulingPeriod": "10 sec",
                 *             "schedulingStrategy": "TIMER_DRIVEN"
                 *           }
                 *         ],
                 *         "controllerServices": [],
                 *         "processGroups": [],
                 *         "connections": []
                 *       }
                 *     }
                 */
                "application/json": Record<string, never>;
                "application/yaml": string;
            };
        };
        responses: {
            /** @description The class had this version already. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowVersion"];
                };
            };
            /** @description Published. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowVersion"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description Publishing the version would leave agents of the class with a flow they cannot run (`parameters_not_ready`): a parameter the version declares gets no value for some (`details.missing`), or a value their binary's processors refuse (`details.refused`); or, with `requireCompatible`, some agents could not run it (`flow_incompatible`, `details.problems`). Nothing is written. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            413: components["responses"]["PayloadTooLarge"];
        };
    };
    getFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowVersion"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    labelFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "label": "kafka tls"
                 *     }
                 */
                "application/json": components["schemas"]["FlowLabelChange"];
            };
        };
        responses: {
            /** @description The version, labelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowVersion"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getFlowContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document, with the content type it was stored with. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                    "application/yaml": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    validateFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description The version's SHA-256, lower-case hex: also its flow id. The example is the hash of the upload example, sent as compact JSON.
                 * @example b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b
                 */
                hash: components["parameters"]["FlowHash"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The report, per binary the class's agents run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FlowValidation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listRunningFlows: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The class's running flows, the most run first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RunningFlows"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listAdoptions: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of adoptions. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdoptionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    adoptFlow: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "flowId": "6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
                 *     }
                 */
                "application/json": components["schemas"]["AdoptionRequest"];
            };
        };
        responses: {
            /** @description Requested: the agent is asked for its bundle. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Adoption"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            503: components["responses"]["CacheUnavailable"];
        };
    };
    getAdoption: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /** @description As the adoption's request answered it: the id of its TRANSFER DEBUG operation. */
                adoptionId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The adoption. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Adoption"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listAssets: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of assets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    uploadAsset: {
        parameters: {
            query: {
                /**
                 * @description The file name agents keep the asset under: 1 to 128 of A-Z a-z 0-9 . _ -, starting with a letter or digit, without `..` (no folders, no hidden files, no way out of the agent's asset directory).
                 * @example pump-calibration.txt
                 */
                name: components["parameters"]["AssetName"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example pump-7 42.0
                 *     pump-9 17.5
                 */
                "application/octet-stream": string;
            };
        };
        responses: {
            /** @description The tenant had this asset already. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            /** @description Stored. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["AssetConflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
        };
    };
    startAssetUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "pump-model.onnx",
                 *       "sizeBytes": 104857600,
                 *       "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                 *       "contentType": "application/octet-stream"
                 *     }
                 */
                "application/json": components["schemas"]["AssetUploadStart"];
            };
        };
        responses: {
            /** @description Started: PUT each part's bytes to its URL, then complete. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetUpload"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["AssetConflict"];
            /** @description The declared size is over the limit (`payload_too_large`, 104,857,600 bytes); nothing is stored. */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            415: components["responses"]["UnsupportedMediaType"];
        };
    };
    abortAssetUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
                uploadId: components["parameters"]["UploadId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetUploadAborted"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    completeAssetUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
                uploadId: components["parameters"]["UploadId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The tenant had this asset already under this name (a racing upload stored it); this upload is removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            /** @description Checked and stored. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description A part is not uploaded yet (`asset_upload_incomplete`; the message names the parts), or a racing upload stored these bytes under another name (`asset_exists`). */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bytes are not those declared (`asset_upload_mismatch`: a part of another size, or the whole of another size or SHA-256, each named in the message): the upload is removed, nothing is stored. */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    signAssetUploadParts: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The upload's id, as `POST /api/v1/assets/uploads` answered it. Another tenant's is none (404). */
                uploadId: components["parameters"]["UploadId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "partNumbers": [
                 *         12,
                 *         13
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["AssetUploadPartsRequest"];
            };
        };
        responses: {
            /** @description Signed: PUT each part's bytes to its new URL, then complete. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AssetUploadParts"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The asset's id: the SHA-256 of its bytes, lower-case hex. The example is the id of the upload example.
                 * @example fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264
                 */
                assetId: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The asset. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    deleteAsset: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The asset's id: the SHA-256 of its bytes, lower-case hex. The example is the id of the upload example.
                 * @example fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264
                 */
                assetId: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; the asset as it was. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Asset"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["AssetConflict"];
        };
    };
    getAssetContent: {
        parameters: {
            query?: {
                /** @description `false` answers 200 with the link in the body instead of redirecting: for a web page, which cannot read a redirect's `Location` and whose Content-Security-Policy keeps its requests on its own origin, and so navigates to the link instead. */
                redirect?: components["parameters"]["DownloadRedirect"];
            };
            header?: never;
            path: {
                /**
                 * @description The asset's id: the SHA-256 of its bytes, lower-case hex. The example is the id of the upload example.
                 * @example fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264
                 */
                assetId: components["parameters"]["AssetId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description With `redirect=false`: the link, to navigate to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DownloadLink"];
                };
            };
            /** @description Follow `Location` for the bytes; the body says the same. */
            302: {
                headers: {
                    /** @description The short-lived download link. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DownloadLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getResourceSet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceSet"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    putResourceSet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "items": [
                 *         {
                 *           "assetId": "fa8590f7a734e19db3592738afbd74b2aec73e3a889891c8f21308635dba3264",
                 *           "path": "calibration"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["ResourceSetRequest"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceSetPush"];
                };
            };
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ResourceSetPush"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            /** @description The set, or an asset it adds, changed meanwhile (`resource_set_conflict`): read it again and retry. */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            503: components["responses"]["CacheUnavailable"];
        };
    };
    listClassParameters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The values, by name. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    discardStagedClassParameters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Discarded; the changes as they were staged. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getClassParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The value. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    putClassParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "value": "broker-1.plant.example:9092"
                 *     }
                 */
                "application/json": components["schemas"]["ParameterValueRequest"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            /** @description Set. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            /** @description Staged: the class's value changes roll out, so the value waits, marked `staged`, for a rollout of the class's staged values; nothing reaches agents yet. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ParameterConflict"];
        };
    };
    deleteClassParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description A class name (see the `ClassName` schema). The example names the class the upload example is published to.
                 * @example edge-gateways
                 */
                className: components["parameters"]["FlowClassName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed; the value as it was. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            /** @description Staged: the class's value changes roll out, so the removal waits, marked `staged` and `removes`, for a rollout of the class's staged values. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ParametersNotReady"];
        };
    };
    listAgents: {
        parameters: {
            query?: {
                class?: components["schemas"]["ClassName"];
                status?: "online" | "offline";
                /** @description The agent's own `agentManifestHash`, which differs between agents of one build. */
                manifestHash?: string;
                /** @description The binary the agent runs: the canonical identity of its manifest (`GET /manifests`). Agents whose manifest Beacon has yet to learn match none. */
                manifestId?: string;
                flowId?: string;
                /** @description Seen at or after this time. */
                lastSeenAfter?: string;
                /** @description Last seen before this time. */
                lastSeenBefore?: string;
                /** @description Part of the agent id or of the device's hostname (case-sensitive). */
                q?: string;
                /** @description Label terms, all of which the agent's labels meet (its operators' labels over those its class reads from its reports): `key=value`, or `key` for the key with any value. Repeat the parameter (`label=site=plant-7&label=gpu`) or separate terms with commas. */
                label?: string;
                /** @description Only agents pinned to a flow version (`true`), or only those not pinned (`false`). */
                pinned?: boolean;
                /** @description Only agents that need attention for this reason, or for any (`any`): read a page at a time from the cache's indexes of such agents, so the list reads only those from the registry. Listed by since when the reason holds (`offline`: by last seen; `errorBulletins`: by until when), then by agent id, `sort=-agentId` reversing it; `any` lists reason after reason, each agent under the first of its reasons. Unanswerable while the cache is down: an empty page. */
                attention?: "any" | "offline" | "errorBulletins" | "backPressure" | "offTarget" | "pinned" | "operationFailed";
                /** @description The registry's indexes are ordered by agent id; ordering by another field would read the whole fleet. */
                sort?: "agentId" | "-agentId";
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of agents. With filters on status or last seen a page may hold fewer than `limit` agents, even none, and still have a `nextCursor`: keep following it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentDetail"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    decommissionAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Decommissioned. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Decommissioned"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    pinAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "flowHash": "7f3a9c2e4b1d8f6a0c5e3b7d9a1f4c2e8b6d0a3f5c7e9b1d4a6f8c0e2b4d6f8a"
                 *     }
                 */
                "application/json": components["schemas"]["PinRequest"];
            };
        };
        responses: {
            /** @description The agent's pin, and the operation sent when it ran another flow. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPinState"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            503: components["responses"]["CacheUnavailable"];
        };
    };
    unpinAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The agent, pinned no more. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentPinState"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["CacheUnavailable"];
        };
    };
    labelAgent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "set": {
                 *         "site": "plant-7",
                 *         "example.com/rack": "r12"
                 *       },
                 *       "remove": [
                 *         "wave"
                 *       ]
                 *     }
                 */
                "application/json": components["schemas"]["LabelChange"];
            };
        };
        responses: {
            /** @description The agent's labels now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentLabels"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listAgentEvents: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the agent's events. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentEventList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listAgentParameters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The effective parameters. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentParameters"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getAgentParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The value. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    putAgentParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "value": "broker-1.plant.example:9092"
                 *     }
                 */
                "application/json": components["schemas"]["ParameterValueRequest"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            /** @description Set. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ParameterConflict"];
        };
    };
    deleteAgentParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                agentId: components["parameters"]["AgentId"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed; the value as it was. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ParametersNotReady"];
        };
    };
    listManifests: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of binaries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManifestList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getManifest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The binary's canonical identity: the SHA-256 of its manifest's content without the per-agent fields, keys and arrays sorted, leaves as strings. */
                manifestId: components["parameters"]["ManifestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ManifestSummary"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getManifestContent: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The binary's canonical identity: the SHA-256 of its manifest's content without the per-agent fields, keys and arrays sorted, leaves as strings. */
                manifestId: components["parameters"]["ManifestId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The manifest JSON exactly as stored, whose SHA-256 is the `manifestId`: object keys and arrays sorted, numbers and booleans as strings, and without `identifier` and `supportedOperations`, which each agent keeps (`GET /agents/{agentId}`). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The settings; a field absent is not set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    putSettings: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TenantSettingsChange"];
            };
        };
        responses: {
            /** @description The settings as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantSettings"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getFleetSummary: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The summary. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FleetSummary"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getFleetAttention: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FleetAttention"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getFleetMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The exposition, ending in `# EOF`. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/openmetrics-text": string;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getFleetBinaries: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The counts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FleetBinaries"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    labelAgents: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "selector": {
                 *         "class": "edge-gateways",
                 *         "labels": [
                 *           "site=plant-7"
                 *         ]
                 *       },
                 *       "set": {
                 *         "wave": "1"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["SelectedLabelChange"];
            };
        };
        responses: {
            /** @description What the change did. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["LabelledAgents"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getFleetHistory: {
        parameters: {
            query?: {
                /** @description One class; the whole fleet when absent. */
                class?: components["schemas"]["ClassName"];
                /** @description Start, taken down to its minute; an hour before `to` unless given. */
                from?: string;
                /** @description End, taken up to its minute; now unless given. At most 24 hours after `from`. */
                to?: string;
                /** @description Seconds per point: a whole number of minutes (60, 300, 3600). */
                step?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The series. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FleetHistory"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getUsageStatement: {
        parameters: {
            query?: {
                /** @description The month, `YYYY-MM` from 1970-01; the current month so far unless given. */
                month?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The month's statement. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageStatement"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getUsage: {
        parameters: {
            query?: {
                /** @description Start, taken down to its hour; 24 hours before the end unless given. */
                from?: string;
                /** @description End, taken up to its hour; now unless given. At most 31 days after `from`. */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The hours with usage, and the totals. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Usage"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    listCertificates: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
                /** @description Only those expiring within the warning window (30 days unless configured). */
                expiring?: boolean;
                /** @description Only those expiring within this many days; overrides `expiring`. */
                expiringWithinDays?: number;
                /** @description Only the agent certificates issued for this agent id, revoked and expired ones included, newest first, read from an index of the tenant's certificates by agent (one issued a moment ago may be missing yet). An agent holds a few: one page, no cursor. Not with `expiring` or `expiringWithinDays`. */
                agentId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of certificates (never a private key). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CertificateList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    issueCertificate: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "kind": "agent",
                 *       "agentId": "edge-gw-0001",
                 *       "csrPem": "-----BEGIN CERTIFICATE REQUEST-----\nMIHQMHkCAQAwFzEVMBMGA1UEAwwMZWRnZS1ndy0wMDAxMFkwEwYHKoZIzj0CAQYI\nKoZIzj0DAQcDQgAE6Eo5xPxO8DRH3gTQIs8sigUtccgQdFh/qA9qo53TkdrK0ptl\nMuSyrkHnrcGXmLsLaAYmvGiG95UmPL1kUvpfVaAAMAoGCCqGSM49BAMCA0cAMEQC\nIHkgWUGheKQtM4BIXjjmEX2AFPcJdQJSyuL7/F+rCrR7AiB87PLyXb/cBC1loi6C\nEx2CMWx1Vj1cfOGxbKbIZ5Ia8Q==\n-----END CERTIFICATE REQUEST-----\n"
                 *     }
                 */
                "application/json": components["schemas"]["CertificateRequest"];
            };
        };
        responses: {
            /** @description Issued. With `generateKey`, the private key is in this response only. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IssuedCertificate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            503: components["responses"]["Unavailable"];
        };
    };
    getCertificate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Hex; case and leading zeros do not matter. A certificate of a tenant's own CA is named by its serial qualified by its CA, `<CA id>.<serial>`, as its record lists it. */
                serial: components["parameters"]["Serial"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The certificate. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Certificate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    revokeCertificate: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description Hex; case and leading zeros do not matter. A certificate of a tenant's own CA is named by its serial qualified by its CA, `<CA id>.<serial>`, as its record lists it. */
                serial: components["parameters"]["Serial"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "reason": "keyCompromise"
                 *     }
                 */
                "application/json": components["schemas"]["RevokeRequest"];
            };
        };
        responses: {
            /** @description Revoked (again: the first revocation's time and reason stay). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Certificate"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listOperations: {
        parameters: {
            query?: {
                state?: components["schemas"]["OperationState"];
                agentId?: string;
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of operations. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    createOperation: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "agentId": "edge-gw-0001",
                 *       "operation": "DESCRIBE",
                 *       "operand": "MANIFEST"
                 *     }
                 */
                "application/json": components["schemas"]["OperationRequest"];
            };
        };
        responses: {
            /** @description Queued. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedOperations"];
                };
            };
            /** @description The request ran out of its time budget before the selection's last agent: what it did so far, and the selection the sweeper continues (`GET /operations/selections/{selectionId}`). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationSelection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            503: components["responses"]["CacheUnavailable"];
        };
    };
    getOperationSelection: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As the 202 of `POST /operations` named it. */
                selectionId: components["parameters"]["SelectionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The selection. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationSelection"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getOperation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The operation. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Operation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    cancelOperation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Cancelled. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Operation"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
        };
    };
    getOperationResult: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The answer, as kept (`result.bytes` of the operation long). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": Record<string, never>;
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The caller's tenant has no such operation (another tenant's answer the same), or the operation has no result: not a DESCRIBE, not acknowledged as applied, its acknowledgement brought nothing, or its result could not be kept (`resultLost`). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The result has expired (`result_expired`): the bucket's lifecycle deletes it. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listDebugBundles: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
                /** @description Only this agent's bundles, read from an index of the tenant's bundles by agent. */
                agentId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of debug bundles. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DebugBundleList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    getDebugBundle: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The bundle. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DebugBundle"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The caller's tenant has no debug bundle of this operation (another tenant's answer the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bundle has expired (`result_expired`): the bucket's lifecycle deletes it. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    downloadDebugBundle: {
        parameters: {
            query?: {
                /** @description `false` answers 200 with the link in the body instead of redirecting: for a web page, which cannot read a redirect's `Location` and whose Content-Security-Policy keeps its requests on its own origin, and so navigates to the link instead. */
                redirect?: components["parameters"]["DownloadRedirect"];
            };
            header?: never;
            path: {
                /** @description As Beacon made it: it ends with `~` and the agent's id, which is how an acknowledgement that names no agent finds its operation. */
                operationId: components["parameters"]["OperationId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description With `redirect=false`: the link, to navigate to. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DownloadLink"];
                };
            };
            /** @description Follow `Location` for the bytes; the body says the same. */
            302: {
                headers: {
                    /** @description The short-lived download link. */
                    Location?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DownloadLink"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            /** @description The caller's tenant has no debug bundle of this operation (another tenant's answer the same). */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bundle has expired (`result_expired`): the bucket's lifecycle deletes it. */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listRollouts: {
        parameters: {
            query?: {
                /** @description Only this class's rollouts. */
                className?: components["schemas"]["ClassName"];
                /** @description Only rollouts in this state (`awaiting_approval`: the approvals queue). Like `className`, it filters each page as read, so a page may hold fewer items than `limit`, or none, and still name a `nextCursor`. */
                state?: components["schemas"]["RolloutState"];
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of rollouts. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    startRollout: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "className": "edge-gateways",
                 *       "flowHash": "b7c576248c4ca72f40ac532ec85d42d999b1cff76c5c0dfd938c5ab8ca76365b",
                 *       "plan": {
                 *         "canary": {
                 *           "count": 2
                 *         },
                 *         "batchSize": 50,
                 *         "batchIntervalSeconds": 60,
                 *         "soakSeconds": 300,
                 *         "failureThreshold": {
                 *           "percent": 10
                 *         },
                 *         "onFailure": "rollback"
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["RolloutRequest"];
            };
        };
        responses: {
            /** @description Started, its canary queued; or waiting for its approval or start time. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    getRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rollout. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listRolloutAgents: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the rollout's agents. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RolloutAgentList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    pauseRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rollout after the action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    resumeRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rollout after the action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    finishRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rollout after the action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    abortRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rollout after the action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    approveRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The rollout after the action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    refuseRollout: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                rolloutId: components["parameters"]["RolloutId"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Why; `Refused by <subject>` when absent. */
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The rollout after the action. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rollout"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["RolloutConflict"];
        };
    };
    listAuditRecords: {
        parameters: {
            query?: {
                /** @description Records at or after this time. */
                from?: string;
                /** @description Records before this time; after `from`. */
                to?: string;
                /** @description Only this person's or client's records: the token subject (`sub`) as records name it. */
                actor?: string;
                /** @description Only this operation's records, by the operationId this document gives it (`putClass`, `createOperation`, ...). */
                operation?: string;
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit records. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditRecordList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    listSubscriptions: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of subscriptions (never a secret). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    createSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "url": "https://hooks.example.com/beacon",
                 *       "eventTypes": [
                 *         "agent.offline",
                 *         "agent.online",
                 *         "operation.*"
                 *       ],
                 *       "agentClass": "pumps",
                 *       "description": "Pager duty for the pump fleet"
                 *     }
                 */
                "application/json": components["schemas"]["SubscriptionRequest"];
            };
        };
        responses: {
            /** @description Created. The secret is in this answer only. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CreatedSubscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["SubscriptionLimit"];
        };
    };
    getSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    deleteSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted; the subscription as it was. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    testSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The attempt's outcome, whether or not the receiver took it. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookTestResult"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            502: components["responses"]["WebhookTesterUnavailable"];
        };
    };
    enableSubscription: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The subscription, active. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Subscription"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path: {
                /**
                 * @description The subscription's id, as its creation answered: `wh-`, the creation time in epoch milliseconds, a unique part.
                 * @example wh-1764000000000-0b4c7c6e-5d1f-4a53-9a3e-2f8f61a0c9d1
                 */
                subscriptionId: components["parameters"]["SubscriptionId"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the subscription's deliveries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listGroups: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of groups. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
        };
    };
    createGroup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "name": "kafka-publishers",
                 *       "description": "Agents that can run PublishKafka 2.x",
                 *       "query": {
                 *         "components": [
                 *           {
                 *             "kind": "processor",
                 *             "type": "org.apache.nifi.processors.kafka.pubsub.PublishKafka",
                 *             "version": {
                 *               "atLeast": "2.0.0",
                 *               "below": "3.0.0"
                 *             }
                 *           }
                 *         ],
                 *         "labels": [
                 *           "site=plant-7"
                 *         ]
                 *       }
                 *     }
                 */
                "application/json": components["schemas"]["GroupRequest"];
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["GroupConflict"];
        };
    };
    getGroup: {
        parameters: {
            query?: {
                /** @description `pass`: the count by the last counting pass; `live`: the members counted now, at the cost of a read of the agents' index. */
                count?: "pass" | "live";
            };
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    putGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GroupDefinition"];
            };
        };
        responses: {
            /** @description The group as changed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    deleteGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group deleted. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Group"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    listGroupAgents: {
        parameters: {
            query?: {
                /** @description The `nextCursor` of the previous page. */
                cursor?: components["parameters"]["Cursor"];
                /** @description Page size, at most 100. */
                limit?: components["parameters"]["Limit"];
            };
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of members. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AgentList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    pinGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                /**
                 * @example {
                 *       "flowHash": "7f3a9c2e4b1d8f6a0c5e3b7d9a1f4c2e8b6d0a3f5c7e9b1d4a6f8c0e2b4d6f8a"
                 *     }
                 */
                "application/json": components["schemas"]["GroupPinRequest"];
            };
        };
        responses: {
            /** @description How many members were pinned, and those passed over. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupPinned"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            503: components["responses"]["CacheUnavailable"];
        };
    };
    unpinGroup: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description How many members were unpinned, and those passed over. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GroupUnpinned"];
                };
            };
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            503: components["responses"]["CacheUnavailable"];
        };
    };
    listGroupParameters: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The group's values, by name. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntryList"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    getGroupParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The value. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
    putGroupParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "value": "broker-1.plant.example:9092"
                 *     }
                 */
                "application/json": components["schemas"]["ParameterValueRequest"];
            };
        };
        responses: {
            /** @description Replaced. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            /** @description Set. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["ParameterConflict"];
        };
    };
    deleteGroupParameter: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description A group's name, spelled as a class name is (see the `ClassName` schema). */
                groupName: components["parameters"]["GroupName"];
                /**
                 * @description A parameter name (see the `ParameterName` schema); a space is sent as `%20`.
                 * @example kafka.brokers
                 */
                name: components["parameters"]["ParameterName"];
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed; the value as it was. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ParameterEntry"];
                };
            };
            400: components["responses"]["BadRequest"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
        };
    };
}
type WithRequired<T, K extends keyof T> = T & {
    [P in K]-?: T[P];
};
