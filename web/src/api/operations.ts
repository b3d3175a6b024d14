// Generated from schemas/console/openapi.json by `npm run web:api-types`; do not edit.

/** Each route's least role (`x-beacon-role`) and what it is to a session limited to classes (`x-beacon-scope`). */
export const operations = {
  "GET /api/v1/openapi.json": {
    "role": "viewer",
    "scope": "shared"
  },
  "GET /api/v1/classes": {
    "role": "viewer",
    "scope": "items:name"
  },
  "GET /api/v1/classes/{className}": {
    "role": "viewer",
    "scope": "class"
  },
  "PUT /api/v1/classes/{className}": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/flows": {
    "role": "viewer",
    "scope": "class"
  },
  "POST /api/v1/classes/{className}/flows": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/flows/{hash}": {
    "role": "viewer",
    "scope": "class"
  },
  "PUT /api/v1/classes/{className}/flows/{hash}/label": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/flows/{hash}/content": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/flows/{hash}/validation": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/running-flows": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/adoptions": {
    "role": "viewer",
    "scope": "class"
  },
  "POST /api/v1/classes/{className}/adoptions": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/adoptions/{adoptionId}": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/assets": {
    "role": "viewer",
    "scope": "tenant"
  },
  "POST /api/v1/assets": {
    "role": "operator",
    "scope": "tenant"
  },
  "POST /api/v1/assets/uploads": {
    "role": "operator",
    "scope": "tenant"
  },
  "DELETE /api/v1/assets/uploads/{uploadId}": {
    "role": "operator",
    "scope": "tenant"
  },
  "POST /api/v1/assets/uploads/{uploadId}/complete": {
    "role": "operator",
    "scope": "tenant"
  },
  "POST /api/v1/assets/uploads/{uploadId}/parts": {
    "role": "operator",
    "scope": "tenant"
  },
  "GET /api/v1/assets/{assetId}": {
    "role": "viewer",
    "scope": "tenant"
  },
  "DELETE /api/v1/assets/{assetId}": {
    "role": "operator",
    "scope": "tenant"
  },
  "GET /api/v1/assets/{assetId}/content": {
    "role": "viewer",
    "scope": "tenant"
  },
  "GET /api/v1/classes/{className}/resources": {
    "role": "viewer",
    "scope": "class"
  },
  "PUT /api/v1/classes/{className}/resources": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/parameters": {
    "role": "viewer",
    "scope": "class"
  },
  "DELETE /api/v1/classes/{className}/staged-parameters": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/classes/{className}/parameters/{name}": {
    "role": "viewer",
    "scope": "class"
  },
  "PUT /api/v1/classes/{className}/parameters/{name}": {
    "role": "operator",
    "scope": "class"
  },
  "DELETE /api/v1/classes/{className}/parameters/{name}": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/agents": {
    "role": "viewer",
    "scope": "items:agentClass"
  },
  "GET /api/v1/agents/{agentId}": {
    "role": "viewer",
    "scope": "class"
  },
  "DELETE /api/v1/agents/{agentId}": {
    "role": "operator",
    "scope": "class"
  },
  "PUT /api/v1/agents/{agentId}/pin": {
    "role": "operator",
    "scope": "class"
  },
  "DELETE /api/v1/agents/{agentId}/pin": {
    "role": "operator",
    "scope": "class"
  },
  "POST /api/v1/agents/{agentId}/labels": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/agents/{agentId}/events": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/agents/{agentId}/parameters": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/agents/{agentId}/parameters/{name}": {
    "role": "viewer",
    "scope": "class"
  },
  "PUT /api/v1/agents/{agentId}/parameters/{name}": {
    "role": "operator",
    "scope": "class"
  },
  "DELETE /api/v1/agents/{agentId}/parameters/{name}": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/manifests": {
    "role": "viewer",
    "scope": "shared"
  },
  "GET /api/v1/manifests/{manifestId}": {
    "role": "viewer",
    "scope": "shared"
  },
  "GET /api/v1/manifests/{manifestId}/content": {
    "role": "viewer",
    "scope": "shared"
  },
  "GET /api/v1/settings": {
    "role": "viewer",
    "scope": "shared"
  },
  "PUT /api/v1/settings": {
    "role": "admin",
    "scope": "tenant"
  },
  "GET /api/v1/fleet/summary": {
    "role": "viewer",
    "scope": "tenant"
  },
  "GET /api/v1/fleet/attention": {
    "role": "viewer",
    "scope": "items:name"
  },
  "GET /api/v1/fleet/metrics": {
    "role": "viewer",
    "scope": "members"
  },
  "GET /api/v1/fleet/binaries": {
    "role": "viewer",
    "scope": "items:className"
  },
  "POST /api/v1/fleet/labels": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/fleet/history": {
    "role": "viewer",
    "scope": "tenant"
  },
  "GET /api/v1/usage/statement": {
    "role": "admin",
    "scope": "tenant"
  },
  "GET /api/v1/usage": {
    "role": "admin",
    "scope": "tenant"
  },
  "GET /api/v1/certificates": {
    "role": "admin",
    "scope": "items:agentId"
  },
  "POST /api/v1/certificates": {
    "role": "admin",
    "scope": "class"
  },
  "GET /api/v1/certificates/{serial}": {
    "role": "admin",
    "scope": "class"
  },
  "POST /api/v1/certificates/{serial}/revoke": {
    "role": "admin",
    "scope": "class"
  },
  "GET /api/v1/operations": {
    "role": "viewer",
    "scope": "items:agentId"
  },
  "POST /api/v1/operations": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/operations/selections/{selectionId}": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/operations/{operationId}": {
    "role": "viewer",
    "scope": "class"
  },
  "POST /api/v1/operations/{operationId}/cancel": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/operations/{operationId}/result": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/debug-bundles": {
    "role": "viewer",
    "scope": "items:agentId"
  },
  "GET /api/v1/debug-bundles/{operationId}": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/debug-bundles/{operationId}/content": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/rollouts": {
    "role": "viewer",
    "scope": "items:className"
  },
  "POST /api/v1/rollouts": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/rollouts/{rolloutId}": {
    "role": "viewer",
    "scope": "class"
  },
  "GET /api/v1/rollouts/{rolloutId}/agents": {
    "role": "viewer",
    "scope": "class"
  },
  "POST /api/v1/rollouts/{rolloutId}/pause": {
    "role": "operator",
    "scope": "class"
  },
  "POST /api/v1/rollouts/{rolloutId}/resume": {
    "role": "operator",
    "scope": "class"
  },
  "POST /api/v1/rollouts/{rolloutId}/finish": {
    "role": "operator",
    "scope": "class"
  },
  "POST /api/v1/rollouts/{rolloutId}/abort": {
    "role": "operator",
    "scope": "class"
  },
  "POST /api/v1/rollouts/{rolloutId}/approve": {
    "role": "operator",
    "scope": "class"
  },
  "POST /api/v1/rollouts/{rolloutId}/refuse": {
    "role": "operator",
    "scope": "class"
  },
  "GET /api/v1/audit": {
    "role": "admin",
    "scope": "items:actor.classes"
  },
  "GET /api/v1/webhooks": {
    "role": "admin",
    "scope": "tenant"
  },
  "POST /api/v1/webhooks": {
    "role": "admin",
    "scope": "tenant"
  },
  "GET /api/v1/webhooks/{subscriptionId}": {
    "role": "admin",
    "scope": "tenant"
  },
  "DELETE /api/v1/webhooks/{subscriptionId}": {
    "role": "admin",
    "scope": "tenant"
  },
  "POST /api/v1/webhooks/{subscriptionId}/test": {
    "role": "admin",
    "scope": "tenant"
  },
  "POST /api/v1/webhooks/{subscriptionId}/enable": {
    "role": "admin",
    "scope": "tenant"
  },
  "GET /api/v1/webhooks/{subscriptionId}/deliveries": {
    "role": "admin",
    "scope": "tenant"
  },
  "GET /api/v1/groups": {
    "role": "viewer",
    "scope": "tenant"
  },
  "POST /api/v1/groups": {
    "role": "operator",
    "scope": "tenant"
  },
  "GET /api/v1/groups/{groupName}": {
    "role": "viewer",
    "scope": "tenant"
  },
  "PUT /api/v1/groups/{groupName}": {
    "role": "operator",
    "scope": "tenant"
  },
  "DELETE /api/v1/groups/{groupName}": {
    "role": "operator",
    "scope": "tenant"
  },
  "GET /api/v1/groups/{groupName}/agents": {
    "role": "viewer",
    "scope": "items:agentClass"
  },
  "POST /api/v1/groups/{groupName}/pin": {
    "role": "operator",
    "scope": "members"
  },
  "POST /api/v1/groups/{groupName}/unpin": {
    "role": "operator",
    "scope": "members"
  },
  "GET /api/v1/groups/{groupName}/parameters": {
    "role": "viewer",
    "scope": "tenant"
  },
  "GET /api/v1/groups/{groupName}/parameters/{name}": {
    "role": "viewer",
    "scope": "tenant"
  },
  "PUT /api/v1/groups/{groupName}/parameters/{name}": {
    "role": "operator",
    "scope": "tenant"
  },
  "DELETE /api/v1/groups/{groupName}/parameters/{name}": {
    "role": "operator",
    "scope": "tenant"
  }
} as const;
