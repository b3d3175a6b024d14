// Generated from schemas/ by `npm run schemas:validators`; do not edit.
export const operationValidatorsOf = {
  getOpenApi: {
    parameters: () => import("./compiled-console-parameters/getOpenApi.js"),
    documents: () => import("./compiled-console-documents/getOpenApi.js"),
  },
  listClasses: {
    parameters: () => import("./compiled-console-parameters/listClasses.js"),
    documents: () => import("./compiled-console-documents/listClasses.js"),
  },
  getClass: {
    parameters: () => import("./compiled-console-parameters/getClass.js"),
    documents: () => import("./compiled-console-documents/getClass.js"),
  },
  putClass: {
    parameters: () => import("./compiled-console-parameters/putClass.js"),
    documents: () => import("./compiled-console-documents/putClass.js"),
  },
  listFlows: {
    parameters: () => import("./compiled-console-parameters/listFlows.js"),
    documents: () => import("./compiled-console-documents/listFlows.js"),
  },
  uploadFlow: {
    parameters: () => import("./compiled-console-parameters/uploadFlow.js"),
    documents: () => import("./compiled-console-documents/uploadFlow.js"),
  },
  getFlow: {
    parameters: () => import("./compiled-console-parameters/getFlow.js"),
    documents: () => import("./compiled-console-documents/getFlow.js"),
  },
  labelFlow: {
    parameters: () => import("./compiled-console-parameters/labelFlow.js"),
    documents: () => import("./compiled-console-documents/labelFlow.js"),
  },
  getFlowContent: {
    parameters: () => import("./compiled-console-parameters/getFlowContent.js"),
    documents: () => import("./compiled-console-documents/getFlowContent.js"),
  },
  validateFlow: {
    parameters: () => import("./compiled-console-parameters/validateFlow.js"),
    documents: () => import("./compiled-console-documents/validateFlow.js"),
  },
  listRunningFlows: {
    parameters: () => import("./compiled-console-parameters/listRunningFlows.js"),
    documents: () => import("./compiled-console-documents/listRunningFlows.js"),
  },
  listAdoptions: {
    parameters: () => import("./compiled-console-parameters/listAdoptions.js"),
    documents: () => import("./compiled-console-documents/listAdoptions.js"),
  },
  adoptFlow: {
    parameters: () => import("./compiled-console-parameters/adoptFlow.js"),
    documents: () => import("./compiled-console-documents/adoptFlow.js"),
  },
  getAdoption: {
    parameters: () => import("./compiled-console-parameters/getAdoption.js"),
    documents: () => import("./compiled-console-documents/getAdoption.js"),
  },
  listAssets: {
    parameters: () => import("./compiled-console-parameters/listAssets.js"),
    documents: () => import("./compiled-console-documents/listAssets.js"),
  },
  uploadAsset: {
    parameters: () => import("./compiled-console-parameters/uploadAsset.js"),
    documents: () => import("./compiled-console-documents/uploadAsset.js"),
  },
  startAssetUpload: {
    parameters: () => import("./compiled-console-parameters/startAssetUpload.js"),
    documents: () => import("./compiled-console-documents/startAssetUpload.js"),
  },
  abortAssetUpload: {
    parameters: () => import("./compiled-console-parameters/abortAssetUpload.js"),
    documents: () => import("./compiled-console-documents/abortAssetUpload.js"),
  },
  completeAssetUpload: {
    parameters: () => import("./compiled-console-parameters/completeAssetUpload.js"),
    documents: () => import("./compiled-console-documents/completeAssetUpload.js"),
  },
  signAssetUploadParts: {
    parameters: () => import("./compiled-console-parameters/signAssetUploadParts.js"),
    documents: () => import("./compiled-console-documents/signAssetUploadParts.js"),
  },
  getAsset: {
    parameters: () => import("./compiled-console-parameters/getAsset.js"),
    documents: () => import("./compiled-console-documents/getAsset.js"),
  },
  deleteAsset: {
    parameters: () => import("./compiled-console-parameters/deleteAsset.js"),
    documents: () => import("./compiled-console-documents/deleteAsset.js"),
  },
  getAssetContent: {
    parameters: () => import("./compiled-console-parameters/getAssetContent.js"),
    documents: () => import("./compiled-console-documents/getAssetContent.js"),
  },
  getResourceSet: {
    parameters: () => import("./compiled-console-parameters/getResourceSet.js"),
    documents: () => import("./compiled-console-documents/getResourceSet.js"),
  },
  putResourceSet: {
    parameters: () => import("./compiled-console-parameters/putResourceSet.js"),
    documents: () => import("./compiled-console-documents/putResourceSet.js"),
  },
  listClassParameters: {
    parameters: () => import("./compiled-console-parameters/listClassParameters.js"),
    documents: () => import("./compiled-console-documents/listClassParameters.js"),
  },
  discardStagedClassParameters: {
    parameters: () => import("./compiled-console-parameters/discardStagedClassParameters.js"),
    documents: () => import("./compiled-console-documents/discardStagedClassParameters.js"),
  },
  getClassParameter: {
    parameters: () => import("./compiled-console-parameters/getClassParameter.js"),
    documents: () => import("./compiled-console-documents/getClassParameter.js"),
  },
  putClassParameter: {
    parameters: () => import("./compiled-console-parameters/putClassParameter.js"),
    documents: () => import("./compiled-console-documents/putClassParameter.js"),
  },
  deleteClassParameter: {
    parameters: () => import("./compiled-console-parameters/deleteClassParameter.js"),
    documents: () => import("./compiled-console-documents/deleteClassParameter.js"),
  },
  listAgents: {
    parameters: () => import("./compiled-console-parameters/listAgents.js"),
    documents: () => import("./compiled-console-documents/listAgents.js"),
  },
  getAgent: {
    parameters: () => import("./compiled-console-parameters/getAgent.js"),
    documents: () => import("./compiled-console-documents/getAgent.js"),
  },
  decommissionAgent: {
    parameters: () => import("./compiled-console-parameters/decommissionAgent.js"),
    documents: () => import("./compiled-console-documents/decommissionAgent.js"),
  },
  pinAgent: {
    parameters: () => import("./compiled-console-parameters/pinAgent.js"),
    documents: () => import("./compiled-console-documents/pinAgent.js"),
  },
  unpinAgent: {
    parameters: () => import("./compiled-console-parameters/unpinAgent.js"),
    documents: () => import("./compiled-console-documents/unpinAgent.js"),
  },
  labelAgent: {
    parameters: () => import("./compiled-console-parameters/labelAgent.js"),
    documents: () => import("./compiled-console-documents/labelAgent.js"),
  },
  listAgentEvents: {
    parameters: () => import("./compiled-console-parameters/listAgentEvents.js"),
    documents: () => import("./compiled-console-documents/listAgentEvents.js"),
  },
  listAgentParameters: {
    parameters: () => import("./compiled-console-parameters/listAgentParameters.js"),
    documents: () => import("./compiled-console-documents/listAgentParameters.js"),
  },
  getAgentParameter: {
    parameters: () => import("./compiled-console-parameters/getAgentParameter.js"),
    documents: () => import("./compiled-console-documents/getAgentParameter.js"),
  },
  putAgentParameter: {
    parameters: () => import("./compiled-console-parameters/putAgentParameter.js"),
    documents: () => import("./compiled-console-documents/putAgentParameter.js"),
  },
  deleteAgentParameter: {
    parameters: () => import("./compiled-console-parameters/deleteAgentParameter.js"),
    documents: () => import("./compiled-console-documents/deleteAgentParameter.js"),
  },
  listManifests: {
    parameters: () => import("./compiled-console-parameters/listManifests.js"),
    documents: () => import("./compiled-console-documents/listManifests.js"),
  },
  getManifest: {
    parameters: () => import("./compiled-console-parameters/getManifest.js"),
    documents: () => import("./compiled-console-documents/getManifest.js"),
  },
  getManifestContent: {
    parameters: () => import("./compiled-console-parameters/getManifestContent.js"),
    documents: () => import("./compiled-console-documents/getManifestContent.js"),
  },
  getSettings: {
    parameters: () => import("./compiled-console-parameters/getSettings.js"),
    documents: () => import("./compiled-console-documents/getSettings.js"),
  },
  putSettings: {
    parameters: () => import("./compiled-console-parameters/putSettings.js"),
    documents: () => import("./compiled-console-documents/putSettings.js"),
  },
  getFleetSummary: {
    parameters: () => import("./compiled-console-parameters/getFleetSummary.js"),
    documents: () => import("./compiled-console-documents/getFleetSummary.js"),
  },
  getFleetAttention: {
    parameters: () => import("./compiled-console-parameters/getFleetAttention.js"),
    documents: () => import("./compiled-console-documents/getFleetAttention.js"),
  },
  getFleetMetrics: {
    parameters: () => import("./compiled-console-parameters/getFleetMetrics.js"),
    documents: () => import("./compiled-console-documents/getFleetMetrics.js"),
  },
  getFleetBinaries: {
    parameters: () => import("./compiled-console-parameters/getFleetBinaries.js"),
    documents: () => import("./compiled-console-documents/getFleetBinaries.js"),
  },
  labelAgents: {
    parameters: () => import("./compiled-console-parameters/labelAgents.js"),
    documents: () => import("./compiled-console-documents/labelAgents.js"),
  },
  getFleetHistory: {
    parameters: () => import("./compiled-console-parameters/getFleetHistory.js"),
    documents: () => import("./compiled-console-documents/getFleetHistory.js"),
  },
  getUsageStatement: {
    parameters: () => import("./compiled-console-parameters/getUsageStatement.js"),
    documents: () => import("./compiled-console-documents/getUsageStatement.js"),
  },
  getUsage: {
    parameters: () => import("./compiled-console-parameters/getUsage.js"),
    documents: () => import("./compiled-console-documents/getUsage.js"),
  },
  listCertificates: {
    parameters: () => import("./compiled-console-parameters/listCertificates.js"),
    documents: () => import("./compiled-console-documents/listCertificates.js"),
  },
  issueCertificate: {
    parameters: () => import("./compiled-console-parameters/issueCertificate.js"),
    documents: () => import("./compiled-console-documents/issueCertificate.js"),
  },
  getCertificate: {
    parameters: () => import("./compiled-console-parameters/getCertificate.js"),
    documents: () => import("./compiled-console-documents/getCertificate.js"),
  },
  revokeCertificate: {
    parameters: () => import("./compiled-console-parameters/revokeCertificate.js"),
    documents: () => import("./compiled-console-documents/revokeCertificate.js"),
  },
  listOperations: {
    parameters: () => import("./compiled-console-parameters/listOperations.js"),
    documents: () => import("./compiled-console-documents/listOperations.js"),
  },
  createOperation: {
    parameters: () => import("./compiled-console-parameters/createOperation.js"),
    documents: () => import("./compiled-console-documents/createOperation.js"),
  },
  getOperationSelection: {
    parameters: () => import("./compiled-console-parameters/getOperationSelection.js"),
    documents: () => import("./compiled-console-documents/getOperationSelection.js"),
  },
  getOperation: {
    parameters: () => import("./compiled-console-parameters/getOperation.js"),
    documents: () => import("./compiled-console-documents/getOperation.js"),
  },
  cancelOperation: {
    parameters: () => import("./compiled-console-parameters/cancelOperation.js"),
    documents: () => import("./compiled-console-documents/cancelOperation.js"),
  },
  getOperationResult: {
    parameters: () => import("./compiled-console-parameters/getOperationResult.js"),
    documents: () => import("./compiled-console-documents/getOperationResult.js"),
  },
  listDebugBundles: {
    parameters: () => import("./compiled-console-parameters/listDebugBundles.js"),
    documents: () => import("./compiled-console-documents/listDebugBundles.js"),
  },
  getDebugBundle: {
    parameters: () => import("./compiled-console-parameters/getDebugBundle.js"),
    documents: () => import("./compiled-console-documents/getDebugBundle.js"),
  },
  downloadDebugBundle: {
    parameters: () => import("./compiled-console-parameters/downloadDebugBundle.js"),
    documents: () => import("./compiled-console-documents/downloadDebugBundle.js"),
  },
  listRollouts: {
    parameters: () => import("./compiled-console-parameters/listRollouts.js"),
    documents: () => import("./compiled-console-documents/listRollouts.js"),
  },
  startRollout: {
    parameters: () => import("./compiled-console-parameters/startRollout.js"),
    documents: () => import("./compiled-console-documents/startRollout.js"),
  },
  getRollout: {
    parameters: () => import("./compiled-console-parameters/getRollout.js"),
    documents: () => import("./compiled-console-documents/getRollout.js"),
  },
  listRolloutAgents: {
    parameters: () => import("./compiled-console-parameters/listRolloutAgents.js"),
    documents: () => import("./compiled-console-documents/listRolloutAgents.js"),
  },
  pauseRollout: {
    parameters: () => import("./compiled-console-parameters/pauseRollout.js"),
    documents: () => import("./compiled-console-documents/pauseRollout.js"),
  },
  resumeRollout: {
    parameters: () => import("./compiled-console-parameters/resumeRollout.js"),
    documents: () => import("./compiled-console-documents/resumeRollout.js"),
  },
  finishRollout: {
    parameters: () => import("./compiled-console-parameters/finishRollout.js"),
    documents: () => import("./compiled-console-documents/finishRollout.js"),
  },
  abortRollout: {
    parameters: () => import("./compiled-console-parameters/abortRollout.js"),
    documents: () => import("./compiled-console-documents/abortRollout.js"),
  },
  approveRollout: {
    parameters: () => import("./compiled-console-parameters/approveRollout.js"),
    documents: () => import("./compiled-console-documents/approveRollout.js"),
  },
  refuseRollout: {
    parameters: () => import("./compiled-console-parameters/refuseRollout.js"),
    documents: () => import("./compiled-console-documents/refuseRollout.js"),
  },
  listAuditRecords: {
    parameters: () => import("./compiled-console-parameters/listAuditRecords.js"),
    documents: () => import("./compiled-console-documents/listAuditRecords.js"),
  },
  listSubscriptions: {
    parameters: () => import("./compiled-console-parameters/listSubscriptions.js"),
    documents: () => import("./compiled-console-documents/listSubscriptions.js"),
  },
  createSubscription: {
    parameters: () => import("./compiled-console-parameters/createSubscription.js"),
    documents: () => import("./compiled-console-documents/createSubscription.js"),
  },
  getSubscription: {
    parameters: () => import("./compiled-console-parameters/getSubscription.js"),
    documents: () => import("./compiled-console-documents/getSubscription.js"),
  },
  deleteSubscription: {
    parameters: () => import("./compiled-console-parameters/deleteSubscription.js"),
    documents: () => import("./compiled-console-documents/deleteSubscription.js"),
  },
  testSubscription: {
    parameters: () => import("./compiled-console-parameters/testSubscription.js"),
    documents: () => import("./compiled-console-documents/testSubscription.js"),
  },
  enableSubscription: {
    parameters: () => import("./compiled-console-parameters/enableSubscription.js"),
    documents: () => import("./compiled-console-documents/enableSubscription.js"),
  },
  listWebhookDeliveries: {
    parameters: () => import("./compiled-console-parameters/listWebhookDeliveries.js"),
    documents: () => import("./compiled-console-documents/listWebhookDeliveries.js"),
  },
  listGroups: {
    parameters: () => import("./compiled-console-parameters/listGroups.js"),
    documents: () => import("./compiled-console-documents/listGroups.js"),
  },
  createGroup: {
    parameters: () => import("./compiled-console-parameters/createGroup.js"),
    documents: () => import("./compiled-console-documents/createGroup.js"),
  },
  getGroup: {
    parameters: () => import("./compiled-console-parameters/getGroup.js"),
    documents: () => import("./compiled-console-documents/getGroup.js"),
  },
  putGroup: {
    parameters: () => import("./compiled-console-parameters/putGroup.js"),
    documents: () => import("./compiled-console-documents/putGroup.js"),
  },
  deleteGroup: {
    parameters: () => import("./compiled-console-parameters/deleteGroup.js"),
    documents: () => import("./compiled-console-documents/deleteGroup.js"),
  },
  listGroupAgents: {
    parameters: () => import("./compiled-console-parameters/listGroupAgents.js"),
    documents: () => import("./compiled-console-documents/listGroupAgents.js"),
  },
  pinGroup: {
    parameters: () => import("./compiled-console-parameters/pinGroup.js"),
    documents: () => import("./compiled-console-documents/pinGroup.js"),
  },
  unpinGroup: {
    parameters: () => import("./compiled-console-parameters/unpinGroup.js"),
    documents: () => import("./compiled-console-documents/unpinGroup.js"),
  },
  listGroupParameters: {
    parameters: () => import("./compiled-console-parameters/listGroupParameters.js"),
    documents: () => import("./compiled-console-documents/listGroupParameters.js"),
  },
  getGroupParameter: {
    parameters: () => import("./compiled-console-parameters/getGroupParameter.js"),
    documents: () => import("./compiled-console-documents/getGroupParameter.js"),
  },
  putGroupParameter: {
    parameters: () => import("./compiled-console-parameters/putGroupParameter.js"),
    documents: () => import("./compiled-console-documents/putGroupParameter.js"),
  },
  deleteGroupParameter: {
    parameters: () => import("./compiled-console-parameters/deleteGroupParameter.js"),
    documents: () => import("./compiled-console-documents/deleteGroupParameter.js"),
  },
};
