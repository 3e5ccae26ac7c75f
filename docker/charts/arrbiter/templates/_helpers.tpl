{{/* Names and labels. */}}
{{- define "arrbiter.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "arrbiter.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "arrbiter.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "arrbiter.selectorLabels" -}}
app.kubernetes.io/name: {{ include "arrbiter.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "arrbiter.labels" -}}
helm.sh/chart: {{ include "arrbiter.chart" . }}
{{ include "arrbiter.selectorLabels" . }}
app.kubernetes.io/version: {{ include "arrbiter.imageTag" . | trunc 63 | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- include "arrbiter.commonLabels" . }}
{{- end }}

{{/* commonLabels, on a line of their own each; the chart's own labels win over them. */}}
{{- define "arrbiter.commonLabels" -}}
{{- with .Values.commonLabels }}
{{- range $key, $value := omit . "helm.sh/chart" "app.kubernetes.io/name" "app.kubernetes.io/instance" "app.kubernetes.io/version" "app.kubernetes.io/managed-by" "app.kubernetes.io/component" "app.kubernetes.io/part-of" }}
{{ $key }}: {{ $value | quote }}
{{- end }}
{{- end }}
{{- end }}

{{/*
  Labels of the pods that are not server replicas (migration Job, helm test): no app.kubernetes.io/name,
  so that neither the Deployment's ReplicaSet (which adopts matching bare pods), the Service nor the
  PodDisruptionBudget selects them. $ = root context, component = what they are.
*/}}
{{- define "arrbiter.auxiliaryLabels" -}}
helm.sh/chart: {{ include "arrbiter.chart" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
app.kubernetes.io/part-of: {{ include "arrbiter.name" .root }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- include "arrbiter.commonLabels" .root }}
{{- end }}

{{- define "arrbiter.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "arrbiter.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "arrbiter.imageTag" -}}
{{- default .Chart.AppVersion .Values.image.tag }}
{{- end }}

{{/* repository:tag, or repository@digest when a digest is set. */}}
{{- define "arrbiter.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (include "arrbiter.imageTag" .) }}
{{- end }}
{{- end }}

{{- define "arrbiter.external" -}}
{{- if eq .Values.database.mode "external" }}true{{ end }}
{{- end }}

{{/* The PUBLIC_URL: config.publicUrl, else the first ingress or route host. */}}
{{- define "arrbiter.publicUrl" -}}
{{- if .Values.config.publicUrl }}
{{- .Values.config.publicUrl }}
{{- else if and .Values.ingress.enabled .Values.ingress.hosts }}
{{- $host := (first .Values.ingress.hosts).host }}
{{- $tls := false }}
{{- range .Values.ingress.tls }}{{ if has $host .hosts }}{{ $tls = true }}{{ end }}{{ end }}
{{- printf "%s://%s" (ternary "https" "http" $tls) $host }}
{{- else if and .Values.route.enabled .Values.route.hostnames }}
{{- printf "https://%s" (first .Values.route.hostnames) }}
{{- end }}
{{- end }}

{{/* The chart's refusals: combinations that cannot work, with what to do instead. */}}
{{- define "arrbiter.validate" -}}
{{- $external := eq .Values.database.mode "external" }}
{{- if and (not $external) (gt (int .Values.replicaCount) 1) }}
{{- fail "database.mode=embedded runs exactly one replica (the database lives in its pod): set replicaCount=1, or database.mode=external for more" }}
{{- end }}
{{- if and (not $external) .Values.autoscaling.enabled }}
{{- fail "autoscaling.enabled needs database.mode=external: the embedded database runs exactly one replica" }}
{{- end }}
{{- if and $external (not .Values.secretKey.existingSecret) }}
{{- fail "database.mode=external needs secretKey.existingSecret: a Secret with the 32-byte key (e.g. kubectl create secret generic arrbiter-secret-key --from-literal=secret-key=$(openssl rand -hex 32)), the same for every replica" }}
{{- end }}
{{- if and $external (not .Values.database.external.url) (not .Values.database.external.existingSecret) }}
{{- fail "database.mode=external needs database.external.url or database.external.existingSecret (key database.external.key, default uri)" }}
{{- end }}
{{- if and $external .Values.database.external.url .Values.database.external.existingSecret }}
{{- fail "set one of database.external.url and database.external.existingSecret, not both" }}
{{- end }}
{{- $listen := .Values.database.external.listen }}
{{- if and (not $external) (or $listen.url $listen.existingSecret) }}
{{- fail "database.external.listen (DATABASE_LISTEN_URL) needs database.mode=external: it is a direct connection for the LISTEN of replicas sharing an external database; the embedded database serves one pod" }}
{{- end }}
{{- if and $external $listen.url $listen.existingSecret }}
{{- fail "set one of database.external.listen.url and database.external.listen.existingSecret, not both" }}
{{- end }}
{{- if .Values.podDisruptionBudget.enabled }}
{{- $min := ternary (int .Values.autoscaling.minReplicas) (int .Values.replicaCount) .Values.autoscaling.enabled }}
{{- if le $min 1 }}
{{- fail "podDisruptionBudget.enabled with one replica would block every node drain: run at least two replicas (database.mode=external) or disable it" }}
{{- end }}
{{- end }}
{{- if and .Values.metrics.serviceMonitor.enabled (not .Values.metrics.enabled) }}
{{- fail "metrics.serviceMonitor.enabled needs metrics.enabled" }}
{{- end }}
{{- if and .Values.metrics.prometheusRule.enabled (not .Values.metrics.enabled) }}
{{- fail "metrics.prometheusRule.enabled needs metrics.enabled" }}
{{- end }}
{{- $sources := 0 }}
{{- range $source := list .Values.configFile.document .Values.configFile.existingConfigMap .Values.configFile.existingSecret }}
{{- if $source }}{{ $sources = add1 $sources }}{{ end }}
{{- end }}
{{- if gt $sources 1 }}
{{- fail "set one of configFile.document, configFile.existingConfigMap and configFile.existingSecret, not several" }}
{{- end }}
{{- if and .Values.oidc.enabled (or (not .Values.oidc.issuer) (not .Values.oidc.clientId)) }}
{{- fail "oidc.enabled needs oidc.issuer and oidc.clientId (register <PUBLIC_URL>/api/auth/oidc/callback at the provider)" }}
{{- end }}
{{- if and .Values.trustedAuth.header (not .Values.trustedAuth.from) }}
{{- fail "trustedAuth.header needs trustedAuth.from: the forward-auth proxy's addresses or CIDRs, which alone may set the header" }}
{{- end }}
{{- if and (not .Values.trustedAuth.header) .Values.trustedAuth.from }}
{{- fail "trustedAuth.from is set without trustedAuth.header" }}
{{- end }}
{{- if and .Values.preStopSleepSeconds (ge (int .Values.preStopSleepSeconds) (int .Values.terminationGracePeriodSeconds)) }}
{{- fail (printf "preStopSleepSeconds (%v) must be less than terminationGracePeriodSeconds (%v): the grace period also covers Arrbiter's own drain after the sleep" .Values.preStopSleepSeconds .Values.terminationGracePeriodSeconds) }}
{{- end }}
{{- $templateRepository := toString .Values.config.templateRepository }}
{{- if and .Values.templateRepositoryToken.existingSecret (not (regexMatch "^(?i)https?://" $templateRepository)) }}
{{- fail "templateRepositoryToken.existingSecret needs config.templateRepository to be an http(s) git URL: the token is sent only to that origin" }}
{{- end }}
{{- if and .Values.config.templateRepositoryUsername (not .Values.templateRepositoryToken.existingSecret) }}
{{- fail "config.templateRepositoryUsername is set without templateRepositoryToken.existingSecret" }}
{{- end }}
{{- $passwordSignIn := toString .Values.config.passwordSignIn }}
{{- if eq $passwordSignIn "false" }}
{{- if and (not .Values.oidc.enabled) (not .Values.trustedAuth.header) }}
{{- fail "config.passwordSignIn=false needs oidc.enabled or trustedAuth.header: otherwise nobody can sign in" }}
{{- end }}
{{- if and .Values.admin.existingSecret .Values.admin.passwordKey }}
{{- fail "config.passwordSignIn=false takes no ADMIN_PASSWORD: set admin.passwordKey to '' (the first owner signs in through SSO or forward-auth)" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Where the declarative configuration document is mounted (CONFIG_FILE), or nothing without one. */}}
{{- define "arrbiter.configFilePath" -}}
{{- with .Values.configFile }}
{{- if or .document .existingConfigMap .existingSecret -}}
/etc/arrbiter/config/{{ .key }}
{{- end }}
{{- end }}
{{- end }}

{{- define "arrbiter.configFileVolume" -}}
{{- with .Values.configFile }}
{{- if .existingSecret }}
- name: config-file
  secret:
    secretName: {{ .existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- else if or .document .existingConfigMap }}
- name: config-file
  configMap:
    name: {{ .existingConfigMap | default (printf "%s-config-file" (include "arrbiter.fullname" $)) }}
    items:
      - key: {{ .key }}
        path: {{ .key }}
{{- end }}
{{- end }}
{{- end }}

{{- define "arrbiter.configFileMount" -}}
{{- if include "arrbiter.configFilePath" . }}
- name: config-file
  mountPath: /etc/arrbiter/config
  readOnly: true
{{- end }}
{{- end }}

{{/* The DATABASE_URL variable, from the chart's Secret or an existing one. */}}
{{- define "arrbiter.databaseUrlEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      {{- if .Values.database.external.existingSecret }}
      name: {{ .Values.database.external.existingSecret }}
      key: {{ .Values.database.external.key }}
      {{- else }}
      name: {{ include "arrbiter.fullname" . }}
      key: database-url
      {{- end }}
{{- end }}

{{/*
  The DATABASE_LISTEN_URL variable (server only: the migration Job does not listen), from the chart's
  Secret or an existing one; nothing when database.external.listen is not set.
*/}}
{{- define "arrbiter.databaseListenUrlEnv" -}}
{{- $listen := .Values.database.external.listen }}
{{- if and (eq .Values.database.mode "external") (or $listen.url $listen.existingSecret) }}
- name: DATABASE_LISTEN_URL
  valueFrom:
    secretKeyRef:
      {{- if $listen.existingSecret }}
      name: {{ $listen.existingSecret }}
      key: {{ $listen.key }}
      {{- else }}
      name: {{ include "arrbiter.fullname" . }}
      key: database-listen-url
      {{- end }}
{{- end }}
{{- end }}

{{/* Environment shared by the server and the migration Job (besides the ConfigMap). */}}
{{- define "arrbiter.secretEnv" -}}
{{- if eq .Values.database.mode "external" }}
{{ include "arrbiter.databaseUrlEnv" . }}
{{- end }}
{{- if .Values.secretKey.existingSecret }}
- name: SECRET_KEY_FILE
  value: /run/secrets/arrbiter/secret-key
{{- end }}
{{- end }}

{{- define "arrbiter.secretKeyVolume" -}}
{{- if .Values.secretKey.existingSecret }}
- name: secret-key
  secret:
    secretName: {{ .Values.secretKey.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.secretKey.key }}
        path: secret-key
{{- end }}
{{- end }}

{{- define "arrbiter.secretKeyMount" -}}
{{- if .Values.secretKey.existingSecret }}
- name: secret-key
  mountPath: /run/secrets/arrbiter
  readOnly: true
{{- end }}
{{- end }}

{{/* The server container's env list (without the ConfigMap's variables). */}}
{{- define "arrbiter.containerEnv" -}}
{{- /* The listen address belongs with the container port and the probes, not in the ConfigMap. */}}
- name: HOST
  value: "0.0.0.0"
- name: PORT
  value: "8080"
{{- include "arrbiter.secretEnv" . }}
{{- with include "arrbiter.databaseListenUrlEnv" . }}
{{ . }}
{{- end }}
{{- with .Values.admin.existingSecret }}
- name: ADMIN_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.admin.usernameKey }}
{{- with $.Values.admin.passwordKey }}
- name: ADMIN_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $.Values.admin.existingSecret }}
      key: {{ . }}
{{- end }}
{{- end }}
{{- if and .Values.oidc.enabled .Values.oidc.clientSecret.existingSecret }}
- name: OIDC_CLIENT_SECRET_FILE
  value: /run/secrets/arrbiter-oidc/client-secret
{{- end }}
{{- if .Values.templateRepositoryToken.existingSecret }}
- name: TEMPLATE_REPOSITORY_TOKEN_FILE
  value: /run/secrets/arrbiter-template-repository/token
{{- end }}
{{- with .Values.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* The OpenID client secret, as a file (server only). */}}
{{- define "arrbiter.oidcSecretVolume" -}}
{{- if and .Values.oidc.enabled .Values.oidc.clientSecret.existingSecret }}
- name: oidc-client-secret
  secret:
    secretName: {{ .Values.oidc.clientSecret.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.oidc.clientSecret.key }}
        path: client-secret
{{- end }}
{{- end }}

{{- define "arrbiter.oidcSecretMount" -}}
{{- if and .Values.oidc.enabled .Values.oidc.clientSecret.existingSecret }}
- name: oidc-client-secret
  mountPath: /run/secrets/arrbiter-oidc
  readOnly: true
{{- end }}
{{- end }}

{{/* The template repository's token, as a file (server only). */}}
{{- define "arrbiter.templateTokenVolume" -}}
{{- with .Values.templateRepositoryToken }}
{{- if .existingSecret }}
- name: template-repository-token
  secret:
    secretName: {{ .existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .key }}
        path: token
{{- end }}
{{- end }}
{{- end }}

{{- define "arrbiter.templateTokenMount" -}}
{{- if .Values.templateRepositoryToken.existingSecret }}
- name: template-repository-token
  mountPath: /run/secrets/arrbiter-template-repository
  readOnly: true
{{- end }}
{{- end }}

{{/* The preStop sleep of the server container, or nothing with preStopSleepSeconds 0. */}}
{{- define "arrbiter.lifecycle" -}}
{{- with .Values.preStopSleepSeconds }}
lifecycle:
  preStop:
    exec:
      command: ["sleep", {{ . | toString | quote }}]
{{- end }}
{{- end }}
