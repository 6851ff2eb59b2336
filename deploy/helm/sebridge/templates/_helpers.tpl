{{- define "sebridge.name" -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- define "sebridge.labels" -}}
app.kubernetes.io/name: sebridge
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
{{- define "sebridge.serviceAccountName" -}}
{{- default (include "sebridge.name" .) .Values.serviceAccount.name -}}
{{- end -}}
