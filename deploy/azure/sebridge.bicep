// sebridge in Azure: Event Hubs (events and commands hubs), the agents' identity and roles, and
// Log Analytics ingestion of the events hub into VmScheduledEvents_CL.
//
//   az deployment group create -g <rg> --template-file deploy/azure/sebridge.bicep \
//     --parameters namespaceName=<ns> workspaceName=<workspace>
//
// sebridge.json next to it is the same deployment as an ARM template (for `--template-file
// sebridge.json` where Bicep is not installed). The columns and the transformation come from the
// sink's row mapping (../loganalytics/columns.json, transform.kql; both generated), so rows
// ingested from the hub and rows sent by the loganalytics sink are the same.

@description('Region of every resource.')
param location string = resourceGroup().location

@description('Event Hubs namespace name.')
param namespaceName string

@description('Event Hubs tier (see docs/eventhubs.md for the fleet each tier supports). Basic has no consumer group besides $Default, which ingestion and spreading need.')
@allowed([
  'Standard'
  'Premium'
])
param namespaceSku string = 'Standard'

@description('Partitions of each hub (Standard: at most 32).')
@minValue(1)
@maxValue(100)
param partitionCount int = 32

@description('Event retention of each hub (Standard: at most 7 days).')
@minValue(1)
@maxValue(90)
param retentionInDays int = 7

@description('Consumer groups agents spread over on the commands hub (commands.eventhubs.consumer-groups). 1: $Default only. $Default counts toward the tier\'s quota: Standard at most 19.')
@minValue(1)
@maxValue(99)
param commandsConsumerGroups int = 1

@description('Existing Log Analytics workspace (same region).')
param workspaceName string

@description('Interactive retention of the table.')
@minValue(4)
@maxValue(730)
param tableRetentionInDays int = 90

@description('The agents\' managed identity.')
param agentIdentityName string = 'sebridge-agents'

@description('Object id of the approval workflow\'s identity (Data Sender on the commands hub); empty: none.')
param approverPrincipalId string = ''

// What each tier allows per event hub (Microsoft's "Azure Event Hubs quotas and limits",
// https://learn.microsoft.com/azure/event-hubs/event-hubs-quotas). The parameters' own bounds are
// the largest tier's; the three values below are what the hubs use: the parameter when the chosen
// tier allows it, otherwise the deployment fails, before anything is created, naming the parameter.
var tierLimits = {
  Standard: { partitionCount: 32, retentionInDays: 7, consumerGroups: 20 }
  Premium: { partitionCount: 100, retentionInDays: 90, consumerGroups: 100 }
}
var hubPartitionCount = partitionCount <= tierLimits[namespaceSku].partitionCount ? partitionCount : fail('partitionCount ${partitionCount} is more than the ${namespaceSku} tier allows per event hub (${tierLimits[namespaceSku].partitionCount}).')
// Retention in hours through retentionDescription: the API's messageRetentionInDays is documented for 1-7 days only.
var hubRetentionHours = retentionInDays <= tierLimits[namespaceSku].retentionInDays ? retentionInDays * 24 : fail('retentionInDays ${retentionInDays} is more than the ${namespaceSku} tier allows per event hub (${tierLimits[namespaceSku].retentionInDays}).')
// $Default counts toward the consumer groups (Basic's quota is 1: $Default alone).
var commandGroupCount = commandsConsumerGroups < tierLimits[namespaceSku].consumerGroups ? commandsConsumerGroups : fail('commandsConsumerGroups ${commandsConsumerGroups} and $Default are more than the ${namespaceSku} tier allows per event hub (${tierLimits[namespaceSku].consumerGroups}).')

var eventsHubName = 'scheduled-events'
var commandsHubName = 'sebridge-commands'
var ingestionConsumerGroup = 'loganalytics'
var ingestionStream = 'Custom-SebridgeEventHub'
var tableName = 'VmScheduledEvents_CL'
var dataSender = '2b629674-e913-4c01-ae53-ef4638d8f975' // Azure Event Hubs Data Sender
var dataReceiver = 'a638d3c7-ab3a-418d-83e6-5f17a39d4fde' // Azure Event Hubs Data Receiver

resource namespace 'Microsoft.EventHub/namespaces@2024-01-01' = {
  name: namespaceName
  location: location
  sku: {
    name: namespaceSku
    tier: namespaceSku
    capacity: 1
  }
  // Its own identity: Event Hubs Capture writes the fleet's audit trail with it (fleet.bicep).
  identity: {
    type: 'SystemAssigned'
  }
  properties: {
    minimumTlsVersion: '1.2'
    disableLocalAuth: true // Microsoft Entra ID only: no shared access keys to leak
  }
}

resource eventsHub 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' = {
  parent: namespace
  name: eventsHubName
  properties: {
    partitionCount: hubPartitionCount
    retentionDescription: {
      cleanupPolicy: 'Delete'
      retentionTimeInHours: hubRetentionHours
    }
  }
}

resource commandsHub 'Microsoft.EventHub/namespaces/eventhubs@2024-01-01' = {
  parent: namespace
  name: commandsHubName
  properties: {
    partitionCount: hubPartitionCount
    retentionDescription: {
      cleanupPolicy: 'Delete'
      retentionTimeInHours: hubRetentionHours
    }
  }
}

resource ingestionGroup 'Microsoft.EventHub/namespaces/eventhubs/consumergroups@2024-01-01' = {
  parent: eventsHub
  name: ingestionConsumerGroup
}

resource commandGroups 'Microsoft.EventHub/namespaces/eventhubs/consumergroups@2024-01-01' = [
  for i in range(0, commandGroupCount > 1 ? commandGroupCount : 0): {
    parent: commandsHub
    name: 'sebridge-${i}'
  }
]

resource agents 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: agentIdentityName
  location: location
}

resource agentsSend 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: eventsHub
  name: guid(eventsHub.id, agents.id, dataSender)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSender)
    principalId: agents.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource agentsReceive 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: commandsHub
  name: guid(commandsHub.id, agents.id, dataReceiver)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiver)
    principalId: agents.properties.principalId
    principalType: 'ServicePrincipal'
  }
}

resource approverSend 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(approverPrincipalId)) {
  scope: commandsHub
  name: guid(commandsHub.id, approverPrincipalId, dataSender)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataSender)
    principalId: approverPrincipalId
    principalType: 'ServicePrincipal'
  }
}

resource workspace 'Microsoft.OperationalInsights/workspaces@2023-09-01' existing = {
  name: workspaceName
}

resource table 'Microsoft.OperationalInsights/workspaces/tables@2022-10-01' = {
  parent: workspace
  name: tableName
  properties: {
    plan: 'Analytics'
    retentionInDays: tableRetentionInDays
    schema: {
      name: tableName
      columns: loadJsonContent('../loganalytics/columns.json')
    }
  }
}

resource dce 'Microsoft.Insights/dataCollectionEndpoints@2023-03-11' = {
  name: '${namespaceName}-dce'
  location: location
  properties: {
    networkAcls: {
      publicNetworkAccess: 'Enabled'
    }
  }
}

resource dcr 'Microsoft.Insights/dataCollectionRules@2023-03-11' = {
  name: '${namespaceName}-to-workspace'
  location: location
  identity: {
    type: 'SystemAssigned'
  }
  dependsOn: [
    table
  ]
  properties: {
    dataCollectionEndpointId: dce.id
    streamDeclarations: {
      '${ingestionStream}': {
        columns: [
          {
            name: 'TimeGenerated'
            type: 'datetime'
          }
          {
            name: 'RawData'
            type: 'string'
          }
          {
            name: 'Properties'
            type: 'dynamic'
          }
        ]
      }
    }
    dataSources: {
      dataImports: {
        eventHub: {
          name: 'sebridgeEvents'
          consumerGroup: ingestionConsumerGroup
          stream: ingestionStream
        }
      }
    }
    destinations: {
      logAnalytics: [
        {
          workspaceResourceId: workspace.id
          name: 'workspace'
        }
      ]
    }
    dataFlows: [
      {
        streams: [
          ingestionStream
        ]
        destinations: [
          'workspace'
        ]
        transformKql: loadTextContent('transform.kql')
        outputStream: 'Custom-${tableName}'
      }
    ]
  }
}

resource dcrReceive 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  scope: eventsHub
  name: guid(eventsHub.id, dcr.id, dataReceiver)
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', dataReceiver)
    principalId: dcr.identity.principalId
    principalType: 'ServicePrincipal'
  }
}

resource association 'Microsoft.Insights/dataCollectionRuleAssociations@2023-03-11' = {
  scope: eventsHub
  name: 'sebridge-events-to-workspace'
  dependsOn: [
    dcrReceive
    ingestionGroup
  ]
  properties: {
    dataCollectionRuleId: dcr.id
  }
}

output namespace string = '${namespaceName}.servicebus.windows.net'
output agentClientId string = agents.properties.clientId
output agentIdentityId string = agents.id
