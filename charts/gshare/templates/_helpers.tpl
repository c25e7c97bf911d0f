{{/*
Object names are fixed (gshare-api, gshare-control-worker, gshare-db, ...): the operator guides, hack/ scripts
and the api itself name them. One release per cluster, in gshare-system.
*/}}

{{/* The key directory, as GSHARE_SECURITY_KEY_DIR. */}}
{{- define "gshare.keyDir" -}}/var/lib/gshare/keys{{- end }}

{{- define "gshare.chart" -}}
{{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels: (dict "root" $ "component" "api"). */}}
{{- define "gshare.selectorLabels" -}}
app.kubernetes.io/name: gshare
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
Labels: (dict "root" $ "component" "api"). Not app.kubernetes.io/part-of or managed-by=gshare: those mark the
objects gShare itself makes in a cluster (its worker, sessions), and the local cluster's worker shares gshare-system.
*/}}
{{- define "gshare.labels" -}}
{{ include "gshare.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
helm.sh/chart: {{ include "gshare.chart" .root }}
{{- end }}

{{- define "gshare.tag" -}}
{{- .Values.image.tag | default .Chart.AppVersion -}}
{{- end }}

{{/* (dict "root" $ "name" "gshare-api") */}}
{{- define "gshare.image" -}}
{{- printf "%s/%s:%s" (trimSuffix "/" .root.Values.image.registry) .name (include "gshare.tag" .root) -}}
{{- end }}

{{- define "gshare.operatorImage" -}}
{{- .Values.operator.image | default (include "gshare.image" (dict "root" . "name" "gshare-cluster-worker")) -}}
{{- end }}

{{- define "gshare.imagePullSecrets" -}}
imagePullSecrets:
{{- range .Values.image.pullSecrets }}
  - name: {{ . | quote }}
{{- end }}
{{- end }}

{{/* The api's Service inside the cluster, fully qualified (nginx resolves auth-url hosts without search domains). */}}
{{- define "gshare.inClusterUrl" -}}
{{- printf "http://gshare-api.%s.svc.%s:%d" .Release.Namespace .Values.clusterDomain (int .Values.api.service.port) -}}
{{- end }}

{{- define "gshare.publicUrl" -}}
{{- printf "%s://%s" .Values.ingress.scheme .Values.ingress.host -}}
{{- end }}

{{- define "gshare.internalPlaneHost" -}}
{{- .Values.ingress.internalPlane.host | default .Values.ingress.host -}}
{{- end }}

{{/*
The control plane as cluster-workers reach it: operator.controlPlaneUrl; else the internal plane's public URL once
it is open (the operator guide opens it before attaching another cluster); else the in-cluster Service.
*/}}
{{- define "gshare.controlPlaneUrl" -}}
{{- if .Values.operator.controlPlaneUrl -}}
{{- trimSuffix "/" .Values.operator.controlPlaneUrl -}}
{{- else if .Values.ingress.internalPlane.enabled -}}
{{- printf "%s://%s" .Values.ingress.scheme (include "gshare.internalPlaneHost" .) -}}
{{- else -}}
{{- include "gshare.inClusterUrl" . -}}
{{- end -}}
{{- end }}

{{/*
Temporal as cluster-workers reach it (GSHARE_CLUSTERWORKER_TEMPORALADDRESS). With the gateway: operator.temporalAddress;
else the internal plane's host once it is open (ingress-nginx passes gRPC, over TLS on 443 when ingress.scheme is
https); else the api's Service (the local cluster only). Without: Temporal's frontend itself.
*/}}
{{- define "gshare.workerTemporalAddress" -}}
{{- $v := .Values -}}
{{- if not $v.temporalGateway.enabled -}}
{{- $v.operator.temporalAddress | default $v.temporal.address -}}
{{- else if $v.operator.temporalAddress -}}
{{- $v.operator.temporalAddress -}}
{{- else if $v.ingress.internalPlane.enabled -}}
{{- printf "%s:%d" (include "gshare.internalPlaneHost" .) (ternary 443 80 (eq $v.ingress.scheme "https")) -}}
{{- else -}}
{{- printf "gshare-api.%s.svc.%s:%d" .Release.Namespace $v.clusterDomain (int $v.temporalGateway.port) -}}
{{- end -}}
{{- end }}

{{/*
"true" when the workers speak TLS to that address (GSHARE_CLUSTERWORKER_TEMPORALTLS): operator.temporalTls when set;
else only for the derived internal-plane address on https (the ingress's certificate; the Service is plain h2c).
*/}}
{{- define "gshare.workerTemporalTls" -}}
{{- $v := .Values -}}
{{- if kindIs "bool" $v.operator.temporalTls -}}
{{- $v.operator.temporalTls -}}
{{- else -}}
{{- and $v.temporalGateway.enabled (not $v.operator.temporalAddress) $v.ingress.internalPlane.enabled (eq $v.ingress.scheme "https") -}}
{{- end -}}
{{- end }}

{{- define "gshare.sessionsAuthUrl" -}}
{{- .Values.api.sessionsAuthUrl | default (printf "%s/internal/connect/verify" (include "gshare.controlPlaneUrl" .)) -}}
{{- end }}

{{/* Database: the Secret with username/password, host, port, name. */}}
{{- define "gshare.db.secretName" -}}
{{- if .Values.database.existingSecret -}}
{{- .Values.database.existingSecret -}}
{{- else if eq .Values.database.mode "incluster" -}}
gshare-db-credentials
{{- else -}}
{{- fail "database.mode=external needs database.existingSecret (a Secret with the keys username and password)" -}}
{{- end -}}
{{- end }}

{{- define "gshare.db.host" -}}
{{- if eq .Values.database.mode "external" -}}
{{- required "database.mode=external needs database.external.host" .Values.database.external.host -}}
{{- else if .Values.database.incluster.cloudnativepg -}}
{{- printf "gshare-db-rw.%s.svc" .Release.Namespace -}}
{{- else -}}
{{- printf "gshare-db.%s.svc" .Release.Namespace -}}
{{- end -}}
{{- end }}

{{- define "gshare.db.port" -}}
{{- if eq .Values.database.mode "external" }}{{ int .Values.database.external.port }}{{ else }}5432{{ end -}}
{{- end }}

{{- define "gshare.db.name" -}}
{{- if eq .Values.database.mode "external" }}{{ .Values.database.external.name }}{{ else }}{{ .Values.database.incluster.name }}{{ end -}}
{{- end }}

{{- define "gshare.db.jdbcUrl" -}}
{{- $url := printf "jdbc:postgresql://%s:%s/%s" (include "gshare.db.host" .) (include "gshare.db.port" .) (include "gshare.db.name" .) -}}
{{- if and (eq .Values.database.mode "external") .Values.database.external.params -}}
{{- $url = printf "%s?%s" $url .Values.database.external.params -}}
{{- end -}}
{{- $url -}}
{{- end }}

{{/* The pod-level security context of every gShare pod (the images run as 65532, Jib's container.user). */}}
{{- define "gshare.podSecurityContext" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 65532
  runAsGroup: 65532
  fsGroup: 65532
  fsGroupChangePolicy: OnRootMismatch
  seccompProfile:
    type: RuntimeDefault
{{- end }}

{{- define "gshare.containerSecurityContext" -}}
securityContext:
  runAsNonRoot: true
  runAsUser: 65532
  runAsGroup: 65532
  readOnlyRootFilesystem: true
  allowPrivilegeEscalation: false
  capabilities:
    drop:
      - ALL
  seccompProfile:
    type: RuntimeDefault
{{- end }}

{{/* The Secret mounted as the key directory: secrets.keys.existingSecret, or the chart's gshare-keys. */}}
{{- define "gshare.keysSecret" -}}
{{- .Values.secrets.keys.existingSecret | default "gshare-keys" -}}
{{- end }}

{{/*
The environment of the api and of the separate control worker: (dict "root" $ "worker" true|false).
Names: docs/configuration.md (application.yaml's variables, and Spring's relaxed binding for the others).
*/}}
{{- define "gshare.env" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
- name: GSHARE_HTTP_PORT
  value: "8080"
- name: GSHARE_MANAGEMENT_PORT
  value: "9090"
- name: GSHARE_DB_URL
  value: {{ include "gshare.db.jdbcUrl" $root | quote }}
- name: GSHARE_DB_USER
  valueFrom:
    secretKeyRef:
      name: {{ include "gshare.db.secretName" $root }}
      key: username
- name: GSHARE_DB_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "gshare.db.secretName" $root }}
      key: password
- name: GSHARE_DB_POOL_SIZE
  value: {{ $v.database.poolSize | quote }}
- name: GSHARE_TEMPORAL_ADDRESS
  value: {{ $v.temporal.address | quote }}
- name: GSHARE_TEMPORAL_NAMESPACE
  value: {{ $v.temporal.namespace | quote }}
- name: GSHARE_TEMPORAL_UI_URL
  value: {{ trimSuffix "/" $v.temporal.uiUrl | quote }}
- name: GSHARE_SECURITY_KEY_DIR
  value: {{ include "gshare.keyDir" $root }}
- name: GSHARE_SECURITY_ISSUER
  value: {{ $v.api.issuer | quote }}
# The signing key sets live in PostgreSQL (every replica shares them, and sees a rotation at once); the key
# directory is a read-only Secret, so nothing is generated into it.
- name: GSHARE_SECURITY_KEYSTORE
  value: database
- name: GSHARE_SECURITY_GENERATEMISSINGKEYS
  value: "false"
{{- if $v.api.signingKeyRotationInterval }}
- name: GSHARE_TOKENS_SIGNINGKEYROTATIONINTERVAL
  value: {{ $v.api.signingKeyRotationInterval | quote }}
{{- end }}
- name: GSHARE_NODE_STALE_SEC
  value: {{ $v.api.nodeStaleSec | quote }}
- name: GSHARE_VOLUME_RECLAIM_GRACE_HOURS
  value: {{ $v.api.volumeReclaimGraceHours | quote }}
- name: GSHARE_VOLUMES_DEFAULTSTORAGECLASS
  value: {{ $v.operator.volumeStorageClass | quote }}
- name: GSHARE_RATE_LIMIT_USER_COMMANDS_PER_SECOND
  value: {{ $v.api.rateLimits.userCommandsPerSecond | quote }}
- name: GSHARE_RATE_LIMIT_CLUSTER_REPORTS_PER_SECOND
  value: {{ $v.api.rateLimits.clusterReportsPerSecond | quote }}
- name: GSHARE_CLUSTERWORKER_DEPLOY
  value: kubernetes
- name: GSHARE_CLUSTERWORKER_IMAGE
  value: {{ include "gshare.operatorImage" $root | quote }}
- name: GSHARE_CLUSTERWORKER_IMAGEPULLPOLICY
  value: {{ $v.operator.imagePullPolicy | quote }}
- name: GSHARE_CLUSTERWORKER_TEMPORALADDRESS
  value: {{ include "gshare.workerTemporalAddress" $root | quote }}
- name: GSHARE_CLUSTERWORKER_TEMPORALGATEWAY
  value: {{ $v.temporalGateway.enabled | quote }}
- name: GSHARE_CLUSTERWORKER_TEMPORALTLS
  value: {{ include "gshare.workerTemporalTls" $root | quote }}
- name: GSHARE_CLUSTERWORKER_CONTROLPLANEURL
  value: {{ include "gshare.controlPlaneUrl" $root | quote }}
- name: GSHARE_CLUSTERWORKER_INVENTORYINTERVALSECONDS
  value: {{ $v.operator.inventoryInterval | quote }}
- name: GSHARE_CLUSTERWORKER_VOLUMESYNCINTERVALSECONDS
  value: {{ $v.operator.volumeSyncInterval | quote }}
- name: GSHARE_CLUSTERWORKER_AGENT_ENABLED
  value: {{ $v.agent.enabled | quote }}
- name: GSHARE_IDLE_PROMETHEUSURL
  value: {{ $v.operator.prometheusUrl | quote }}
- name: GSHARE_IDLE_HAMIMONITORURL
  value: {{ $v.operator.hamiMonitorUrl | quote }}
- name: GSHARE_SESSIONS_AUTHURL
  value: {{ include "gshare.sessionsAuthUrl" $root | quote }}
{{- if $v.api.checkpointBuilderImage }}
- name: GSHARE_SESSIONS_CHECKPOINTBUILDERIMAGE
  value: {{ $v.api.checkpointBuilderImage | quote }}
{{- end }}
{{- if and $v.controlWorker.separate (not .worker) }}
- name: GSHARE_WORKER_ENABLED
  value: "false"
{{- end }}
{{- /* The Temporal gateway runs in the api pods only, which its Service port selects; not in the control worker. */}}
{{- if and $v.temporalGateway.enabled (not .worker) }}
- name: GSHARE_TEMPORALGATEWAY_ENABLED
  value: "true"
- name: GSHARE_TEMPORALGATEWAY_PORT
  value: {{ $v.temporalGateway.port | quote }}
{{- end }}
{{- if $v.api.javaToolOptions }}
- name: JAVA_TOOL_OPTIONS
  value: {{ $v.api.javaToolOptions | quote }}
{{- end }}
{{- /* Temporal client credentials (gshare.temporal.tls-*, api-key-file): files mounted from Secrets. */}}
{{- if $v.temporal.tls.enabled }}
- name: GSHARE_TEMPORAL_TLS_CERT
  value: /etc/gshare/temporal-tls/tls.crt
- name: GSHARE_TEMPORAL_TLS_KEY
  value: /etc/gshare/temporal-tls/tls.key
{{- if $v.temporal.tls.caKey }}
- name: GSHARE_TEMPORAL_TLS_CA
  value: /etc/gshare/temporal-tls/ca.crt
{{- end }}
{{- end }}
{{- if $v.temporal.tls.serverName }}
- name: GSHARE_TEMPORAL_TLS_SERVER_NAME
  value: {{ $v.temporal.tls.serverName | quote }}
{{- end }}
{{- if $v.temporal.apiKey.existingSecret }}
- name: GSHARE_TEMPORAL_API_KEY_FILE
  value: /etc/gshare/temporal-api-key/api-key
{{- end }}
{{- with $v.api.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Volume mounts and volumes of the api and the separate control worker. */}}
{{- define "gshare.volumeMounts" -}}
- name: keys
  mountPath: {{ include "gshare.keyDir" . }}
  readOnly: true
- name: tmp
  mountPath: /tmp
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  mountPath: /etc/gshare/temporal-tls
  readOnly: true
{{- end }}
{{- if .Values.temporal.apiKey.existingSecret }}
- name: temporal-api-key
  mountPath: /etc/gshare/temporal-api-key
  readOnly: true
{{- end }}
{{- end }}

{{- define "gshare.volumes" -}}
- name: keys
  secret:
    secretName: {{ include "gshare.keysSecret" . }}
    defaultMode: 0440
- name: tmp
  emptyDir: {}
{{- if .Values.temporal.tls.enabled }}
- name: temporal-tls
  secret:
    secretName: {{ required "temporal.tls.enabled needs temporal.tls.existingSecret (tls.crt, tls.key, ca.crt)" .Values.temporal.tls.existingSecret }}
    defaultMode: 0440
    items:
      - key: tls.crt
        path: tls.crt
      - key: tls.key
        path: tls.key
      {{- with .Values.temporal.tls.caKey }}
      - key: {{ . }}
        path: ca.crt
      {{- end }}
{{- end }}
{{- if .Values.temporal.apiKey.existingSecret }}
- name: temporal-api-key
  secret:
    secretName: {{ .Values.temporal.apiKey.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ .Values.temporal.apiKey.key }}
        path: api-key
{{- end }}
{{- end }}

{{/* Waits for the in-cluster PostgreSQL (the api exits at start when Flyway cannot connect). */}}
{{- define "gshare.waitForDatabase" -}}
initContainers:
  - name: wait-for-database
    image: {{ .Values.database.incluster.image | quote }}
    imagePullPolicy: {{ .Values.image.pullPolicy }}
    command:
      - sh
      - -c
      - until pg_isready -q -t 2 -h "$DB_HOST" -p "$DB_PORT" -U gshare; do echo "waiting for $DB_HOST:$DB_PORT"; sleep 2; done
    env:
      - name: DB_HOST
        value: {{ include "gshare.db.host" . | quote }}
      - name: DB_PORT
        value: {{ include "gshare.db.port" . | quote }}
    {{- include "gshare.containerSecurityContext" . | nindent 4 }}
    resources:
      requests:
        cpu: 10m
        memory: 16Mi
      limits:
        memory: 64Mi
{{- end }}

{{/* Fails early on combinations that cannot work. */}}
{{- define "gshare.validate" -}}
{{- if and .Values.localCluster.register (not .Values.localCluster.sessionDomain) -}}
{{- fail "localCluster.register needs localCluster.sessionDomain (the host this cluster's ingress serves sessions on)" -}}
{{- end -}}
{{- if and .Values.externalSecrets.enabled (not .Values.externalSecrets.secretStoreRef.name) -}}
{{- fail "externalSecrets.enabled needs externalSecrets.secretStoreRef.name" -}}
{{- end -}}
{{- if and .Values.externalSecrets.enabled .Values.externalSecrets.database.remoteKey (not .Values.database.existingSecret) -}}
{{- fail "externalSecrets.database.remoteKey needs database.existingSecret (the Secret the ExternalSecret writes)" -}}
{{- end -}}
{{- if and .Values.externalSecrets.enabled .Values.externalSecrets.keys.remoteKey (not .Values.secrets.keys.existingSecret) -}}
{{- fail "externalSecrets.keys.remoteKey needs secrets.keys.existingSecret (the Secret the ExternalSecret writes)" -}}
{{- end -}}
{{- end }}

{{/* Spread a component's replicas over nodes and zones, preferred rather than required (a one-node cluster runs). */}}
{{- define "gshare.spread" -}}
{{- range list "kubernetes.io/hostname" "topology.kubernetes.io/zone" }}
- maxSkew: 1
  topologyKey: {{ . }}
  whenUnsatisfiable: ScheduleAnyway
  labelSelector:
    matchLabels:
      {{- include "gshare.selectorLabels" (dict "root" $.root "component" $.component) | nindent 6 }}
{{- end }}
{{- end }}
