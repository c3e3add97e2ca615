#!/usr/bin/env bash
# The Helm chart (helm/gpupool-operator), checked with Helm itself and no
# cluster: `helm lint --strict` and `helm template --include-crds` with the
# default values and with each test/data/helm/values-*.yaml, then the chart's
# kubeVersion constraint. Any error fails the test.
#
#   test/helm/chart_lint_test.sh [SOURCE_DIR]
#
# Helm is $GPUPOOL_HELM: tools/dev/test.sh builds it with
# tools/controlplane/build-helm.sh and exports it. Without it the test exits 77,
# which CTest reports as skipped (SKIP_RETURN_CODE), never as passed.
set -euo pipefail

src=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
chart="$src/helm/gpupool-operator"

if [[ -z "${GPUPOOL_HELM:-}" ]]; then
  echo "SKIPPED: GPUPOOL_HELM is not set; tools/dev/test.sh sets it to the Helm that" \
       "tools/controlplane/build-helm.sh builds (or: export GPUPOOL_HELM=\$(tools/controlplane/build-helm.sh --bin-dir)/helm)"
  exit 77
fi
# Set but unusable is an error, not a skip.
[[ -x "$GPUPOOL_HELM" ]] || { echo "FAIL: GPUPOOL_HELM=$GPUPOOL_HELM is not an executable"; exit 1; }
# Helm logs that it follows the crds/ link on every load; nothing else is hidden.
helm() { "$GPUPOOL_HELM" "$@" 2> >(grep -v 'found symbolic link in path: .*/crds resolves to' >&2); }

# Keep Helm's configuration, cache and data out of the user's home.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HELM_CONFIG_HOME="$tmp/config" HELM_CACHE_HOME="$tmp/cache" HELM_DATA_HOME="$tmp/data"

fail() { echo "FAIL: $*"; exit 1; }
step() { echo "--- $*"; }

helm version --short
# What the chart's crds/ (a link to the repository's crds/) must deliver.
expected_crds=$(ls "$src"/crds/*.yaml | wc -l)
[[ $expected_crds -gt 0 ]] || fail "no CRDs in $src/crds"

values_files=("" "$src"/test/data/helm/values-*.yaml)
for values in "${values_files[@]}"; do
  args=()
  label="default values"
  if [[ -n "$values" ]]; then
    args=(-f "$values")
    label=${values#"$src"/}
  fi

  step "helm lint --strict ($label)"
  helm lint --strict "$chart" "${args[@]}" || fail "helm lint with $label"

  step "helm template --include-crds ($label)"
  out="$tmp/rendered.yaml"
  helm template gpupool-operator "$chart" --namespace gpupool-system --include-crds "${args[@]}" >"$out" \
    || fail "helm template with $label"
  crds=$(grep -c '^kind: CustomResourceDefinition$' "$out" || true)
  [[ $crds -eq $expected_crds ]] || fail "helm template with $label rendered $crds CRDs, expected $expected_crds (crds/ link not followed?)"
  # The chart installs into the release namespace and never creates one.
  if grep -q '^kind: Namespace$' "$out"; then fail "helm template with $label renders a Namespace object"; fi
  echo "rendered $(grep -c '^kind:' "$out" || true) objects ($crds CRDs)"
done

# The chart's kubeVersion admits the supported releases only. Helm's default
# Kubernetes version (stamped by build-helm.sh from client-go) passed above.
step "helm template --kube-version 1.34.0 is refused"
if "$GPUPOOL_HELM" template gpupool-operator "$chart" --kube-version 1.34.0 >/dev/null 2>"$tmp/err"; then
  fail "the chart renders for Kubernetes 1.34, below its kubeVersion"
fi
grep -q 'incompatible with Kubernetes' "$tmp/err" || { cat "$tmp/err"; fail "unexpected error for Kubernetes 1.34"; }
helm template gpupool-operator "$chart" --kube-version 1.35.0 >/dev/null || fail "the chart does not render for Kubernetes 1.35"

echo "PASS: chart lints and renders with ${#values_files[@]} values sets"
