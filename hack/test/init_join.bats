#!/usr/bin/env bats
# init (control plane) and join (workers).

load helpers

JOIN="kubeadm join 10.0.0.10:6443 --token abcdef.0123456789abcdef --discovery-token-ca-cert-hash sha256:0123abcd"

setup() {
  common_setup
  seed_node_root
}

@test "init: a fresh node runs kubeadm init, flannel, then prints the join command on stdout" {
  run --separate-stderr "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  assert_order '^curl -fsSk --max-time 5 https://127.0.0.1:6443/healthz$' '^ss -Hltn$' '^kubeadm version -o short$' \
    '^kubeadm init --pod-network-cidr=10.244.0.0/16 --kubernetes-version=v1.36.1$' \
    '^kubectl apply --server-side --field-manager=gshare-bootstrap -f https://github.com/flannel-io/flannel/releases/latest/download/kube-flannel.yml$' \
    '^kubeadm token create --print-join-command$'
  assert_not_called '^kubeadm reset'
  # stdout is exactly the join command (kubeadm init's own output goes to stderr).
  assert_equal "${output}" "${JOIN}"
}

@test "init: skips kubeadm init when the API server answers /healthz" {
  touch "${STUB_STATE}/apiserver-healthy"
  mkdir -p "${GSHARE_ROOT}/etc/kubernetes/manifests"
  echo x >"${GSHARE_ROOT}/etc/kubernetes/manifests/kube-apiserver.yaml"
  run --separate-stderr "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  assert_not_called '^kubeadm (init|reset)'
  assert_call 'kubeadm token create --print-join-command'
  assert_called '^kubectl apply --server-side .*kube-flannel.yml$'
  grep -q 'skipping kubeadm init' <<<"${stderr}"
  assert_equal "${output}" "${JOIN}"
}

@test "init: run twice, the second run (healthy API server) does not init again" {
  run "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  touch "${STUB_STATE}/apiserver-healthy"
  : >"${STUB_LOG}"
  run "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  assert_not_called '^kubeadm (init|reset)'
}

@test "init: leftovers without a healthy API server are reset with kubeadm reset -f before init" {
  mkdir -p "${GSHARE_ROOT}/etc/kubernetes/manifests" "${GSHARE_ROOT}/var/lib/etcd/member" "${GSHARE_ROOT}/etc/cni/net.d"
  echo x >"${GSHARE_ROOT}/etc/kubernetes/manifests/etcd.yaml"
  echo x >"${GSHARE_ROOT}/etc/cni/net.d/10-flannel.conflist"
  run --separate-stderr "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  assert_order '^curl .*healthz$' '^kubeadm reset -f$' '^kubeadm init '
  [ -z "$(ls -A "${GSHARE_ROOT}/etc/cni/net.d")" ]
  grep -q 'static pod manifests' <<<"${stderr}"
  grep -q 'etcd data' <<<"${stderr}"
}

@test "init: ports in use count as leftovers" {
  printf 'LISTEN 0 4096 *:10250 *:*\nLISTEN 0 4096 127.0.0.1:22 0.0.0.0:*\n' >"${STUB_STATE}/ss"
  run --separate-stderr "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  grep -q 'port 10250 in use' <<<"${stderr}"
  ! grep -q 'port 22 ' <<<"${stderr}"
  assert_order '^kubeadm reset -f$' '^kubeadm init '
}

@test "init: INIT_FORCE_RESET=0 warns about leftovers and stops without resetting" {
  mkdir -p "${GSHARE_ROOT}/etc/kubernetes/manifests"
  echo x >"${GSHARE_ROOT}/etc/kubernetes/manifests/kube-apiserver.yaml"
  INIT_FORCE_RESET=0 run --separate-stderr "${SCRIPT}" init
  [ "${status}" -eq 1 ]
  assert_not_called '^kubeadm (reset|init|token)'
  assert_not_called '^kubectl'
  grep -q 'WARNING: leftovers' <<<"${stderr}"
  grep -q 'INIT_FORCE_RESET=0' <<<"${stderr}"
  [ -f "${GSHARE_ROOT}/etc/kubernetes/manifests/kube-apiserver.yaml" ]
}

@test "init: a failing kubeadm init stops before flannel" {
  touch "${STUB_STATE}/fail.kubeadm"
  run "${SCRIPT}" init
  [ "${status}" -ne 0 ]
  assert_not_called '^kubectl'
}

@test "join: runs exactly the given kubeadm join command" {
  run "${SCRIPT}" join "${JOIN}"
  [ "${status}" -eq 0 ]
  assert_call "${JOIN}"
  [ "$(count_calls '^kubeadm')" -eq 1 ]
}

@test "join: skipped when kubelet.conf exists, so a second run does nothing" {
  run "${SCRIPT}" join "${JOIN}"
  [ "${status}" -eq 0 ]
  [ -f "${GSHARE_ROOT}/etc/kubernetes/kubelet.conf" ]
  : >"${STUB_LOG}"
  run --separate-stderr "${SCRIPT}" join "${JOIN}"
  [ "${status}" -eq 0 ]
  assert_not_called '^kubeadm'
  grep -q 'already joined' <<<"${stderr}"
}
