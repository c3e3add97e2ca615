{{/*
Object names are fixed, the same as config/default's (gpupool-controller,
gpupool-agent, gpupool-webhook, ...), not derived from the release name: the
code and the agent's confinement rely on them (the gpupool-agent-*
ValidatingAdmissionPolicies match the service account name gpupool-agent, the
controller's per-pool monitoring Services select pods labelled
app.kubernetes.io/name=gpupool-agent, the webhook Service and Secret are
flags' defaults). So one release per cluster.
*/}}

{{/*
The chart's name, at most 63 characters (a label value).
*/}}
{{- define "gpupool-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
chart label value: name-version, '+' (not allowed in labels) replaced.
*/}}
{{- define "gpupool-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels every object carries besides app.kubernetes.io/name (and
app.kubernetes.io/component where config/default sets one).
*/}}
{{- define "gpupool-operator.commonLabels" -}}
helm.sh/chart: {{ include "gpupool-operator.chart" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gpupool-operator
{{- end }}

{{/*
Labels of the objects config/default labels app.kubernetes.io/name:
gpupool-operator (RBAC, admission policies, service accounts).
Usage: include "gpupool-operator.labels" (list . "rbac")
*/}}
{{- define "gpupool-operator.labels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "gpupool-operator.name" $root }}
app.kubernetes.io/component: {{ index . 1 }}
{{ include "gpupool-operator.commonLabels" $root }}
{{- end }}

{{/*
The pods' selector labels, as config/default's (never change them across
upgrades: selectors are immutable). The controller's per-pool monitoring
Services select the agent pods by app.kubernetes.io/name=gpupool-agent.
Usage: include "gpupool-operator.selectorLabels" "gpupool-controller"
*/}}
{{- define "gpupool-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ . }}
{{- end }}

{{/*
Labels of a workload and its Services and pods: the selector labels and the
common ones. Usage: include "gpupool-operator.workloadLabels" (list . "gpupool-agent")
*/}}
{{- define "gpupool-operator.workloadLabels" -}}
{{ include "gpupool-operator.selectorLabels" (index . 1) }}
{{ include "gpupool-operator.commonLabels" (index . 0) }}
{{- end }}

{{/*
An image reference from {repository, tag}; an empty tag is the chart's
appVersion. Usage: include "gpupool-operator.image" (list . .Values.controller.image)
*/}}
{{- define "gpupool-operator.image" -}}
{{- $root := index . 0 -}}
{{- $image := index . 1 -}}
{{- printf "%s:%s" $image.repository (default $root.Chart.AppVersion $image.tag) }}
{{- end }}

{{/*
The pods' imagePullSecrets (from .Values.imagePullSecrets: names or
{name: ...}), or nothing.
*/}}
{{- define "gpupool-operator.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
{{- range . }}
{{- if kindIs "string" . }}
  - name: {{ . }}
{{- else }}
  - name: {{ required "imagePullSecrets: each item is a name or {name: ...}" .name }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
