// The sebridge fleet service on Event Hubs Premium: every hub it and its Kafka Streams use, the
// audit trail kept a year through Event Hubs Capture, the service's identity (Data Receiver, Data
// Sender on its own hubs, no management role), and central delivery of the subscription's scheduled
// events through Event Grid (preview) to the agentless-events hub.
//
//   az deployment group create -g <rg> --template-file deploy/azure/sebridge.bicep \
//     --parameters namespaceName=<ns> workspaceName=<workspace> namespaceSku=Premium
//   az deployment group create -g <rg> --template-file deploy/azure/fleet.bicep \
//     --parameters namespaceName=<ns> storageAccountName=<account>
//
// Then run the service with fleet.topics.pre-created=true: it creates and alters nothing, checks
// every hub at start and exits 2 naming what differs. fleet.json next to it is the same deployment
// as an ARM template. The hubs come from fleet-hubs.json (generated): the fleet module's tests hold
// fleet.json's hubs against the topics the service creates for itself and against its pre-created
// check. See docs/deploy.md, "The fleet service on Event Hubs Premium".

@description('Region of every resource.')
param location string = resourceGroup().location

@description('The Event Hubs namespace sebridge.bicep made, on Premium (namespaceSku=Premium): Kafka Streams, transactions and compacted hubs need it.')
param namespaceName string

@description('The agents\' events hub.')
param eventsHubName string = 'scheduled-events'

@description('The agents\' commands hub (the service sends to it).')
param commandsHubName string = 'sebridge-commands'

@description('fleet.topic.prefix of the service.')
param topicPrefix string = 'sebridge-fleet'

@description('fleet.application-id of the service.')
param applicationId string = 'sebridge-fleet'

@description('fleet.topic.approvals of the service: the audit trail.')
param approvalsHubName string = 'sebridge-fleet-approvals'

@description('fleet.partitions of the service.')
@minValue(1)
@maxValue(100)
param partitions int = 6

@description('Retention of the audit and rollouts hubs: at least fleet.history-retention (30 days by default); Premium keeps 90 days at most, Capture keeps the audit trail longer.')
@minValue(30)
@maxValue(90)
param historyRetentionInDays int = 30

@description('How long the captured audit trail is kept in the storage account.')
@minValue(365)
@maxValue(3650)
param auditRetentionInDays int = 365

@description('Storage account for the captured audit trail (made here).')
param storageAccountName string

@description('The fleet service\'s managed identity.')
param fleetIdentityName string = 'sebridge-fleet'

@description('Deliver the subscription\'s scheduled events through Event Grid (preview; one system topic of this type per subscription).')
param centralEvents bool = true

@description('The Event Grid system topic of the subscription\'s scheduled events.')
param systemTopicName string = 'sebridge-maintenance'

// Each hub: name ({0} topicPrefix, {1} applicationId, {2} approvalsHubName), partitions ('fleet':
// the partitions parameter, 'events': the events hub's, 'one'), cleanup, keep ('history' or
// 'week', deleting hubs only) and capture (the audit trail).
var fleetHubs = loadJsonContent('fleet-hubs.json')
var dataSender = '2b629674-e913-4c01-ae53-ef4638d8f975' // Azure Event Hubs Data Sender
var dataReceiver = 'a638d3c7-ab3a-418d-83e6-5f17a39d4fde' // Azure Event Hubs Data Receiver
var storageBlobDataContributor = 'ba92f5b4-2d11-453d-a403-e96b0029c9fe'
var auditContainerName = 'sebridge-audit'
var centralHubName = '${topicPrefix}-agentless-events'

resource namespace 'Microsoft.EventHub/namespaces@2024-01-01' existing = {
  name: namespaceName
}

resource eventsHub 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' existing = {
  parent: namespace
  name: eventsHubName
}

resource commandsHub 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' existing = {
  parent: namespace
  name: commandsHubName
}

resource storage 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: storageAccountName
  location: location
  sku: {
    name: 'Standard_ZRS'
  }
  kind: 'StorageV2'
  properties: {
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    allowBlobPublicAccess: false
    allowSharedKeyAccess: false // Capture writes with the namespace's identity
  }
}

resource blobs 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: storage
  name: 'default'
}

resource auditContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobs
  name: auditContainerName
  properties: {
    publicAccess: 'None'
  }
}

// The audit trail is kept auditRetentionInDays, and no longer.
resource auditRetention 'Microsoft.Storage/storageAccounts/managementPolicies@2023-05-01' = {
  parent: storage
  name: 'default'
  properties: {
    policy: {
      rules: [
        {
          name: 'audit-retention'
          enabled: true
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'blockBlob'
              ]
              prefixMatch: [
                '${auditContainerName}/'
              ]
            }
            actions: {
              baseBlob: {
                delete: {
                  daysAfterModificationGreaterThan: auditRetentionInDays
                }
              }
            }
          }
        }
      ]
    }
  }
}

resource captureWrites 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: auditContainer
  name: guid(auditContainer.id, namespace.id, storageBlobDataContributor)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', storageBlobDataContributor)
    principalId: namespace.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

var auditCapture = {
  enabled: true
  encoding: 'Avro'
  intervalInSeconds: 300
  sizeLimitInBytes: 314572800
  skipEmptyArchives: true
  destination: {
    name: 'EventHubArchive.AzureBlockBlob'
    identity: {
      type: 'SystemAssigned'
    }
    properties: {
      storageAccountResourceId: storage.id
      blobContainer: auditContainerName
      archiveNameFormat: '{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}'
    }
  }
}

resource hubs 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' = [
  for h in fleetHubs: {
    parent: namespace
    name: format(h.name, topicPrefix, applicationId, approvalsHubName)
    dependsOn: [
      auditContainer
      captureWrites
    ]
    properties: {
      partitionCount: h.partitions == 'events' ? eventsHub.properties.partitionCount : (h.partitions == 'one' ? 1 : partitions)
      retentionDescription: h.cleanup == 'Compact' ? { cleanupPolicy: 'Compact', tombstoneRetentionTimeInHours: 24 } : { cleanupPolicy: 'Delete', retentionTimeInHours: h.keep == 'history' ? historyRetentionInDays * 24 : 168 }
      captureDescription: h.capture ? auditCapture : null
    }
  }
]

resource fleet 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: fleetIdentityName
  location: location
}

// Reads every hub; sends to its own hubs and the commands hub only, never as an agent (the events
// hub) or as Azure (the agentless-events hub); no management role: it creates and alters nothing.
resource fleetReceives 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: namespace
  name: guid(namespace.id, fleet.id, dataReceiver)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiver)
    principalId: fleet.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource fleetSendsCommands 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: commandsHub
  name: guid(commandsHub.id, fleet.id, dataSender)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSender)
    principalId: fleet.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource fleetSends 'Microsoft.Authorization/roleAssignments@2022-04-01' = [
  for (h, i) in fleetHubs: {
    scope: hubs[i]
    name: guid(hubs[i].id, fleet.id, dataSender)
    properties: {
      roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSender)
      principalId: fleet.properties.principalId
      principalType: 'ServicePrincipal'
    }
  }
]

// Central delivery (preview): every event of the subscription's scheduled-events system topic, to
// a hub of its own. No event-type filter here: Azure's own pages disagree on the types, so the
// service filters on the resource type instead.
resource centralHub 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' = if (centralEvents) {
  parent: namespace
  name: centralHubName
  properties: {
    partitionCount: partitions
    retentionDescription: {
      cleanupPolicy: 'Delete'
      retentionTimeInHours: 168
    }
  }
}

resource maintenance 'Microsoft.EventGrid/systemTopics@2025-02-15' = if (centralEvents) {
  name: systemTopicName
  location: 'global'
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    source: subscription().id
    topicType: 'Microsoft.ResourceNotifications.MaintenanceResources'
  }
}

resource maintenanceSends 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (centralEvents) {
  scope: centralHub
  name: guid(centralHub.id, maintenance.id, dataSender)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSender)
    principalId: maintenance.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

resource toFleet 'Microsoft.EventGrid/systemTopics/eventSubscriptions@2025-02-15' = if (centralEvents) {
  parent: maintenance
  name: 'to-fleet'
  dependsOn: [
    maintenanceSends
  ]
  properties: {
    deliveryWithResourceIdentity: {
      identity: {
        type: 'SystemAssigned'
      }
      destination: {
        endpointType: 'EventHub'
        properties: {
          resourceId: centralHub.id
        }
      }
    }
    eventDeliverySchema: 'CloudEventSchemaV1_0'
    retryPolicy: {
      maxDeliveryAttempts: 30
      eventTimeToLiveInMinutes: 1440
    }
  }
}

output fleetClientId string = fleet.properties.clientId
output fleetIdentityId string = fleet.id
output auditContainer string = '${storageAccountName}/${auditContainerName}'
output centralEventsHub string = centralEvents ? centralHubName : ''
