{{/*
The chart's name, at most 63 characters (a label value).
*/}}
{{- define "gpupool-operator.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The prefix of every object's name: the release name, with the chart's name
appended unless the release name already contains it.
*/}}
{{- define "gpupool-operator.fullname" -}}
{{- if contains .Chart.Name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/*
chart label value: name-version, '+' (not allowed in labels) replaced.
*/}}
{{- define "gpupool-operator.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Labels every object carries.
*/}}
{{- define "gpupool-operator.labels" -}}
helm.sh/chart: {{ include "gpupool-operator.chart" . }}
{{ include "gpupool-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: gpupool-operator
{{- end }}

{{/*
Labels that select the release's pods (never change them across upgrades:
selectors are immutable). Add app.kubernetes.io/component per workload.
*/}}
{{- define "gpupool-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gpupool-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
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
