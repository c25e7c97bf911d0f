#!/usr/bin/env bats
# addons, label and verify (control plane).

load helpers

setup() {
  common_setup
}

@test "addons: RuntimeClass, HAMi pinned to the server version, ingress-nginx, local-path as default, in order" {
  echo v1.35.4 >"${STUB_STATE}/server-version"
  run "${SCRIPT}" addons
  [ "${status}" -eq 0 ]
  local addons="${REPO_ROOT}/deploy/addons"
  assert_order \
    "^kubectl apply --server-side --field-manager=gshare-bootstrap -f ${addons}/runtimeclass-nvidia.yaml$" \
    '^kubectl version -o json$' \
    "^helm upgrade --install hami hami --repo https://project-hami.github.io/HAMi --namespace kube-system -f ${addons}/hami-values.yaml --set scheduler.kubeScheduler.imageTag=v1.35.4 --version 2.10.0$" \
    "^helm upgrade --install ingress-nginx ingress-nginx --repo https://kubernetes.github.io/ingress-nginx --namespace ingress-nginx --create-namespace -f ${addons}/ingress-nginx-values.yaml$" \
    '^kubectl apply --server-side --field-manager=gshare-bootstrap -f https://raw.githubusercontent.com/rancher/local-path-provisioner/v0.0.31/deploy/local-path-storage.yaml$' \
    '^kubectl annotate storageclass local-path storageclass.kubernetes.io/is-default-class=true --overwrite$'
  # helm is there: no get-helm-3.
  assert_not_called 'get-helm-3'
  # The values files exist and say what the seed says.
  grep -q 'handler: nvidia' "${addons}/runtimeclass-nvidia.yaml"
  grep -qE '^  runtimeClassName: nvidia' "${addons}/hami-values.yaml"
  grep -qE 'http: 30080' "${addons}/ingress-nginx-values.yaml"
  grep -qE 'https: 30443' "${addons}/ingress-nginx-values.yaml"
}

@test "addons: run twice gives the same idempotent calls (apply / helm upgrade --install)" {
  run "${SCRIPT}" addons
  [ "${status}" -eq 0 ]
  local first
  first="$(calls)"
  : >"${STUB_LOG}"
  run "${SCRIPT}" addons
  [ "${status}" -eq 0 ]
  assert_equal "$(calls)" "${first}"
  assert_not_called '^kubectl create|^helm install'
}

@test "addons: chart versions and repositories are overridable" {
  HAMI_CHART_REPO=https://charts.example.com/hami HAMI_CHART_VERSION=2.9.0 INGRESS_NGINX_CHART_VERSION=4.12.0 \
    LOCAL_PATH_MANIFEST=https://mirror.example.com/local-path.yaml run "${SCRIPT}" addons
  [ "${status}" -eq 0 ]
  assert_called '^helm upgrade --install hami hami --repo https://charts.example.com/hami .* --version 2.9.0$'
  assert_called '^helm upgrade --install ingress-nginx .* --version 4.12.0$'
  assert_called '^kubectl apply --server-side --field-manager=gshare-bootstrap -f https://mirror.example.com/local-path.yaml$'
}

@test "addons: installs Helm with get-helm-3 when it is missing" {
  rm "${STUB_BIN}/helm"
  run "${SCRIPT}" addons
  [ "${status}" -eq 0 ]
  assert_order '^curl -fsSL -o .*/get-helm-3 https://raw.githubusercontent.com/helm/helm/main/scripts/get-helm-3$' \
    '^get-helm-3 ran$' '^helm upgrade --install hami '
}

@test "addons: HELM_SKIP_INSTALL=1 with no helm fails with a hint and installs nothing" {
  rm "${STUB_BIN}/helm"
  HELM_SKIP_INSTALL=1 run --separate-stderr "${SCRIPT}" addons
  [ "${status}" -eq 1 ]
  assert_not_called 'get-helm-3|^helm'
  grep -q 'HELM_SKIP_INSTALL=1' <<<"${stderr}"
  grep -q 'hint:' <<<"${stderr}"
}

@test "addons: fails when the server version cannot be read" {
  echo "" >"${STUB_STATE}/server-version"
  run --separate-stderr "${SCRIPT}" addons
  [ "${status}" -eq 1 ]
  assert_not_called '^helm upgrade --install hami'
  grep -q "server version" <<<"${stderr}"
}

@test "label: exclusive and fractional set gpu=on and the gShare mode" {
  run "${SCRIPT}" label gpu-1 exclusive
  [ "${status}" -eq 0 ]
  run "${SCRIPT}" label gpu-2 fractional
  [ "${status}" -eq 0 ]
  assert_equal "$(calls)" $'kubectl label node gpu-1 gpu=on gshare.io/gpu-mode=exclusive --overwrite\nkubectl label node gpu-2 gpu=on gshare.io/gpu-mode=fractional --overwrite'
}

@test "label: cpu sets gshare.io/gpu-mode=cpu and removes gpu=on" {
  run "${SCRIPT}" label cp-1 cpu
  [ "${status}" -eq 0 ]
  assert_equal "$(calls)" 'kubectl label node cp-1 gshare.io/gpu-mode=cpu gpu- --overwrite'
}

@test "label: storage sets gshare.io/role=storage and the NoSchedule taint" {
  run "${SCRIPT}" label store-1 storage
  [ "${status}" -eq 0 ]
  assert_equal "$(calls)" $'kubectl label node store-1 gshare.io/role=storage --overwrite\nkubectl taint node store-1 gshare.io/role=storage:NoSchedule --overwrite'
}

@test "label: can be re-run (same --overwrite calls, success)" {
  run "${SCRIPT}" label gpu-1 fractional
  [ "${status}" -eq 0 ]
  run "${SCRIPT}" label gpu-1 fractional
  [ "${status}" -eq 0 ]
  [ "$(count_calls '^kubectl label node gpu-1 gpu=on gshare.io/gpu-mode=fractional --overwrite$')" -eq 2 ]
}

@test "verify: passes on a healthy cluster and checks every component" {
  run --separate-stderr "${SCRIPT}" verify
  [ "${status}" -eq 0 ]
  assert_called '^kubectl get nodes --no-headers'
  assert_called '^kubectl get nodes -l gpu=on .*nvidia\\\.com/gpu.*nvidia\\\.com/gpumem'
  assert_called '^kubectl get pods -n kube-system -l app.kubernetes.io/component=hami-device-plugin '
  assert_called '^kubectl get pods -n kube-system -l app.kubernetes.io/component=hami-scheduler '
  assert_called '^kubectl get pods -n ingress-nginx -l app.kubernetes.io/component=controller '
  assert_called '^kubectl get pods -n kube-flannel -l app=flannel '
  assert_called '^kubectl get pods -n local-path-storage -l app=local-path-provisioner '
  assert_called '^kubectl get storageclass '
  grep -q 'all checks passed' <<<"${stderr}"
}

@test "verify: fails on a NotReady node" {
  printf 'cp-1 True\ngpu-1 False\n' >"${STUB_STATE}/kubectl-nodes"
  run --separate-stderr "${SCRIPT}" verify
  [ "${status}" -eq 1 ]
  grep -q 'FAIL node gpu-1 not Ready' <<<"${stderr}"
}

@test "verify: fails when a GPU node exposes no nvidia.com/gpumem (neither capacity nor HAMi register)" {
  printf 'gpu-1 2 <none>\n' >"${STUB_STATE}/kubectl-gpu-nodes"
  run --separate-stderr "${SCRIPT}" verify
  [ "${status}" -eq 1 ]
  assert_call 'kubectl get node gpu-1 -o jsonpath={.metadata.annotations.hami\.io/node-nvidia-register}'
  grep -q 'FAIL node gpu-1: nvidia.com/gpu=2 nvidia.com/gpumem=<none>' <<<"${stderr}"
}

@test "verify: GPU memory registered by HAMi counts as nvidia.com/gpumem (JSON and legacy encodings)" {
  printf 'gpu-1 10 <none>\ngpu-2 10 <none>\n' >"${STUB_STATE}/kubectl-gpu-nodes"
  printf '[{"index":0,"id":"GPU-a","count":10,"devmem":24576,"devcore":100,"type":"NVIDIA-L4","numa":0,"health":true},{"index":1,"id":"GPU-b","count":10,"devmem":24576,"devcore":100,"type":"NVIDIA-L4","numa":0,"health":true}]' \
    >"${STUB_STATE}/kubectl-register.gpu-1"
  printf 'GPU-0055,10,32768,100,NVIDIA-Tesla V100-PCIE-32GB,0,true:' >"${STUB_STATE}/kubectl-register.gpu-2"
  run --separate-stderr "${SCRIPT}" verify
  [ "${status}" -eq 0 ]
  grep -q 'ok   node gpu-1: nvidia.com/gpu=10 nvidia.com/gpumem=49152 MiB' <<<"${stderr}"
  grep -q 'ok   node gpu-2: nvidia.com/gpu=10 nvidia.com/gpumem=32768 MiB' <<<"${stderr}"
}

@test "verify: fails when ingress-nginx is not Running or local-path is not the default" {
  printf 'ingress-nginx-controller-abc Pending\n' >"${STUB_STATE}/kubectl-pods.ingress-nginx"
  printf 'local-path <none>\n' >"${STUB_STATE}/kubectl-sc"
  run --separate-stderr "${SCRIPT}" verify
  [ "${status}" -eq 1 ]
  grep -q 'FAIL ingress-nginx controller: 0/1 pods Running' <<<"${stderr}"
  grep -q 'FAIL local-path is not the default StorageClass' <<<"${stderr}"
}

@test "verify: VERIFY_WAIT_TRIES retries before failing" {
  printf '' >"${STUB_STATE}/kubectl-pods.kube-flannel"
  VERIFY_WAIT_TRIES=3 VERIFY_WAIT_INTERVAL=0 run --separate-stderr "${SCRIPT}" verify
  [ "${status}" -eq 1 ]
  [ "$(count_calls '^kubectl get pods -n kube-flannel')" -eq 3 ]
}
