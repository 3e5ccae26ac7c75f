# Sourced by .ci/run, .ci/image and .ci/chart: installs the container and Kubernetes tools once per
# version under $CACHE_DIR/tools (Go builds from the module proxy, containers from Debian's packages)
# and exports where they are. A warm run only checks that each binary exists.
# shellcheck shell=bash

CACHE_DIR="${CACHE_DIR:-${ARRBITER_CACHE_DIR:-$HOME/.cache/arrbiter}}"
TOOLS_DIR="$CACHE_DIR/tools"
mkdir -p "$TOOLS_DIR"

HELM_VERSION=v3.22.0
HELM_UNITTEST_VERSION=1.1.2
KUBECONFORM_VERSION=v0.8.0
KINE_VERSION=v0.17.5
KUBERNETES_VERSION=1.33.4
COMPOSE_VERSION=v2.40.3
PROMETHEUS_OPERATOR_VERSION=v0.85.0
GATEWAY_API_VERSION=v1.5.0
ACTIONLINT_VERSION=v1.7.12

export PATH="/usr/local/go/bin:$PATH"
# Go's module and build caches live beside the tools, so a second run (and a retried build) reuses them.
export GOMODCACHE="$CACHE_DIR/go/mod" GOCACHE="$CACHE_DIR/go/build" GOFLAGS=-modcacherw GOTOOLCHAIN=local

tools_log() { printf '  %s\n' "$*"; }
# Runs a build with its (long) output in $TOOLS_DIR/build.log, shown at the end when it fails.
tools_quiet() {
  "$@" >"$TOOLS_DIR/build.log" 2>&1 || { tail -n 40 "$TOOLS_DIR/build.log"; return 1; }
}

# Debian's packages for images without a daemon (buildah/podman) and a debootstrapped base.
ensure_container_packages() {
  local missing=()
  for p in buildah podman runc fuse-overlayfs slirp4netns uidmap debootstrap; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    tools_log "apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  # runc (crun fails on this cgroup layout), cgroupfs (no systemd in CI), and explicit limits: the
  # inherited ones cannot be set in a container here (`podman kube play` has no --ulimit).
  mkdir -p /etc/containers
  if ! grep -qs '^default_ulimits' /etc/containers/containers.conf; then
    cat >/etc/containers/containers.conf <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  fi
}

# go install into a versioned folder; $1 = folder name, $2 = package@version, rest = go flags.
go_install_to() {
  local dir="$TOOLS_DIR/$1" pkg="$2"
  shift 2
  mkdir -p "$dir"
  GOBIN="$dir" tools_quiet go install "$@" "$pkg"
}

# Build a command inside a downloaded module (for modules whose go.mod has replace directives).
# $1 = output path, $2 = module@version, $3 = package path inside the module.
go_build_in_module() {
  local out="$1" mod="$2" pkg="$3" src work
  src="$(go mod download -json "$mod" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  [ -d "$src" ] || { echo "go mod download $mod failed" >&2; return 1; }
  work="$(mktemp -d)"
  cp -r "$src/." "$work/"
  chmod -R u+w "$work"
  mkdir -p "$(dirname "$out")"
  (cd "$work" && tools_quiet go build -trimpath -o "$out" "$pkg")
  rm -rf "$work"
}

ensure_helm() {
  HELM="$TOOLS_DIR/helm-$HELM_VERSION/helm"
  [ -x "$HELM" ] && return
  tools_log "building helm $HELM_VERSION"
  local v="helm.sh/helm/v3" major="${KUBERNETES_VERSION%%.*}" minor
  minor="${KUBERNETES_VERSION#*.}"
  minor="${minor%%.*}"
  # Without the Kubernetes version variables helm assumes Kubernetes 1.20.
  go_install_to "helm-$HELM_VERSION" "$v/cmd/helm@$HELM_VERSION" -trimpath -ldflags "-s -w \
    -X $v/internal/version.version=$HELM_VERSION \
    -X $v/pkg/chartutil.k8sVersionMajor=$major -X $v/pkg/chartutil.k8sVersionMinor=$minor \
    -X $v/pkg/lint/rules.k8sVersionMajor=$major -X $v/pkg/lint/rules.k8sVersionMinor=$minor"
}

# helm-unittest as a plugin folder: the binary and a plugin.yaml without upstream's download hooks.
ensure_helm_unittest() {
  HELM_UNITTEST_DIR="$TOOLS_DIR/helm-unittest-$HELM_UNITTEST_VERSION"
  [ -x "$HELM_UNITTEST_DIR/untt" ] && return
  tools_log "building helm-unittest $HELM_UNITTEST_VERSION"
  go_build_in_module "$HELM_UNITTEST_DIR/untt" \
    "github.com/helm-unittest/helm-unittest@v$HELM_UNITTEST_VERSION" ./cmd/helm-unittest
  cat >"$HELM_UNITTEST_DIR/plugin.yaml" <<EOF
name: unittest
version: $HELM_UNITTEST_VERSION
usage: unit test for helm charts
description: unit test for helm charts
ignoreFlags: false
command: "\$HELM_PLUGIN_DIR/untt"
EOF
}

ensure_kubeconform() {
  KUBECONFORM="$TOOLS_DIR/kubeconform-$KUBECONFORM_VERSION/kubeconform"
  [ -x "$KUBECONFORM" ] && return
  tools_log "building kubeconform $KUBECONFORM_VERSION"
  go_install_to "kubeconform-$KUBECONFORM_VERSION" \
    "github.com/yannh/kubeconform/cmd/kubeconform@$KUBECONFORM_VERSION" -trimpath -ldflags "-s -w"
}

ensure_kine() {
  KINE="$TOOLS_DIR/kine-$KINE_VERSION/kine"
  [ -x "$KINE" ] && return
  tools_log "building kine $KINE_VERSION"
  go_install_to "kine-$KINE_VERSION" "github.com/k3s-io/kine@$KINE_VERSION" -trimpath -ldflags "-s -w"
}

# actionlint checks .github/workflows (the release workflow cannot run here), with Debian's shellcheck
# on their `run:` scripts.
ensure_actionlint() {
  ACTIONLINT="$TOOLS_DIR/actionlint-$ACTIONLINT_VERSION/actionlint"
  if ! command -v shellcheck >/dev/null; then
    tools_log "apt-get install shellcheck"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
  fi
  [ -x "$ACTIONLINT" ] && return
  tools_log "building actionlint $ACTIONLINT_VERSION"
  go_install_to "actionlint-$ACTIONLINT_VERSION" \
    "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION" -trimpath -ldflags "-s -w"
}

# kube-apiserver cannot be go-installed (k8s.io/kubernetes replaces its staging modules with local
# folders): a wrapper module requires it and replaces each staging module with its published v0.x.
ensure_kube_apiserver() {
  KUBE_APISERVER="$TOOLS_DIR/kube-apiserver-v$KUBERNETES_VERSION/kube-apiserver"
  [ -x "$KUBE_APISERVER" ] && return
  tools_log "building kube-apiserver v$KUBERNETES_VERSION (several minutes)"
  local work gomod staging
  work="$(mktemp -d)"
  gomod="$(go mod download -json "k8s.io/kubernetes@v$KUBERNETES_VERSION" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')"
  staging="v0.${KUBERNETES_VERSION#*.}"
  {
    printf 'module arrbiter.local/kube-apiserver\n\ngo 1.24\n\nrequire k8s.io/kubernetes v%s\n\n' "$KUBERNETES_VERSION"
    sed -n 's#^\t\(k8s\.io/[^ ]*\) => \./staging/src/.*$#replace \1 => \1 '"$staging"'#p' "$gomod"
  } >"$work/go.mod"
  printf 'package tools\n\nimport _ "k8s.io/kubernetes/cmd/kube-apiserver/app"\n' >"$work/tools.go"
  (cd "$work" && tools_quiet go mod tidy && mkdir -p "$(dirname "$KUBE_APISERVER")" &&
    tools_quiet go build -trimpath -ldflags "-s -w \
      -X k8s.io/component-base/version.gitVersion=v$KUBERNETES_VERSION \
      -X k8s.io/component-base/version.gitMajor=${KUBERNETES_VERSION%%.*} \
      -X k8s.io/component-base/version.gitMinor=$(echo "$KUBERNETES_VERSION" | cut -d. -f2)" \
      -o "$KUBE_APISERVER" k8s.io/kubernetes/cmd/kube-apiserver)
  rm -rf "$work"
}

# The compose plugin, to validate docker/compose.yaml with `docker compose config`.
ensure_compose() {
  DOCKER_COMPOSE="$TOOLS_DIR/compose-$COMPOSE_VERSION/docker-compose"
  [ -x "$DOCKER_COMPOSE" ] && return
  tools_log "building docker compose $COMPOSE_VERSION"
  go_build_in_module "$DOCKER_COMPOSE" "github.com/docker/compose/v2@$COMPOSE_VERSION" ./cmd
}

# CRD YAML for kubeconform's extra schemas, from the Go modules that ship it.
ensure_crds() {
  CRD_DIR="$TOOLS_DIR/crds-$PROMETHEUS_OPERATOR_VERSION-$GATEWAY_API_VERSION"
  [ -f "$CRD_DIR/.done" ] && return
  tools_log "fetching the ServiceMonitor, PrometheusRule and HTTPRoute CRDs"
  local po gw
  po="$(go mod download -json "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  gw="$(go mod download -json "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  mkdir -p "$CRD_DIR"
  cp "$po/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" \
    "$po/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml" \
    "$gw/config/crd/standard/gateway.networking.k8s.io_httproutes.yaml" "$CRD_DIR/"
  touch "$CRD_DIR/.done"
}

ensure_chart_tools() {
  ensure_helm
  ensure_helm_unittest
  ensure_kubeconform
  ensure_kine
  ensure_kube_apiserver
  ensure_crds
  ensure_actionlint
  export HELM HELM_UNITTEST_DIR KUBECONFORM KINE KUBE_APISERVER CRD_DIR ACTIONLINT
}
