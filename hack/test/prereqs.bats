#!/usr/bin/env bats
# prereqs [--gpu]: swap, kernel, apt repositories and packages, NVIDIA driver, containerd config.

load helpers

setup() {
  common_setup
  seed_node_root
}

@test "prereqs: calls in order (swap, kernel, apt keyring and repo, packages, containerd, services)" {
  run --separate-stderr "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  assert_order '^swapoff -a$' '^modprobe overlay$' '^modprobe br_netfilter$' '^sysctl --system$' \
    '^apt-get update -q$' '^apt-get install -y -q ca-certificates curl gpg$' \
    '^curl -fsSL -o .* https://pkgs.k8s.io/core:/stable:/v1.36/deb/Release.key$' \
    '^gpg --batch --yes --dearmor -o ' \
    '^apt-get install -y -q containerd nfs-common kubelet kubeadm kubectl$' \
    '^apt-mark hold kubelet kubeadm kubectl$' '^containerd config default$' \
    '^systemctl restart containerd$' '^systemctl enable --now containerd$' '^systemctl enable --now kubelet$'
  # Two apt-get updates: one before the base packages, one after the Kubernetes repository was added.
  [ "$(count_calls '^apt-get update')" -eq 2 ]
  assert_not_called '^nvidia-ctk|^nvidia-smi|^ubuntu-drivers|^reboot'
  [ -z "${output}" ] # nothing on stdout: no reboot marker
}

@test "prereqs: writes modules, sysctl, the Kubernetes 1.36 apt source and keyring" {
  run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  assert_equal "$(cat "${GSHARE_ROOT}/etc/modules-load.d/k8s.conf")" $'overlay\nbr_netfilter'
  grep -qE '^net.bridge.bridge-nf-call-iptables += 1$' "${GSHARE_ROOT}/etc/sysctl.d/99-kubernetes-cri.conf"
  grep -qE '^net.ipv4.ip_forward += 1$' "${GSHARE_ROOT}/etc/sysctl.d/99-kubernetes-cri.conf"
  assert_equal "$(cat "${GSHARE_ROOT}/etc/apt/sources.list.d/kubernetes.list")" \
    'deb [signed-by=/etc/apt/keyrings/kubernetes-apt-keyring.gpg] https://pkgs.k8s.io/core:/stable:/v1.36/deb/ /'
  grep -q 'key from https://pkgs.k8s.io/core:/stable:/v1.36/deb/Release.key v1' \
    "${GSHARE_ROOT}/etc/apt/keyrings/kubernetes-apt-keyring.gpg"
  head -n 1 "${GSHARE_ROOT}/etc/apt/keyrings/kubernetes-apt-keyring.gpg" | grep -qx dearmored
}

@test "prereqs: swap lines in fstab are commented once, never duplicated" {
  run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  local fstab="${GSHARE_ROOT}/etc/fstab"
  [ "$(grep -cxF $'# /swap.img\tnone\tswap\tsw\t0\t0' "${fstab}")" -eq 1 ]
  [ "$(grep -cxF '# UUID=5c1e2f3a-2222-4b6c-8d7e-9f0a1b2c3d4e none swap sw 0 0' "${fstab}")" -eq 1 ]
  # Lines already commented stay exactly as they were.
  [ "$(grep -cxF '# /old-swap none swap sw 0 0' "${fstab}")" -eq 1 ]
  [ "$(grep -cxF '#/dev/sdb2 none swap sw 0 0' "${fstab}")" -eq 1 ]
  # No active swap entry left, every other line untouched.
  [ -z "$(awk '!/^[[:space:]]*#/ && $3 == "swap"' "${fstab}")" ]
  grep -qF 'UUID=0b7a4d8e-1111-4c2a-9d5e-2f1b3c4d5e6f /               ext4' "${fstab}"
  [ "$(wc -l <"${fstab}")" -eq "$(wc -l <"${FIXTURES}/fstab")" ]
}

@test "prereqs: containerd config has SystemdCgroup, config_path once, plugin_config_path untouched" {
  run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  local cfg="${GSHARE_ROOT}/etc/containerd/config.toml"
  grep -qxF '            SystemdCgroup = true' "${cfg}"
  ! grep -q 'SystemdCgroup = false' "${cfg}"
  [ "$(grep -cE '^[[:space:]]*config_path[[:space:]]*=' "${cfg}")" -eq 1 ]
  grep -qxF '      config_path = "/etc/containerd/certs.d"' "${cfg}"
  # The registry table keeps its key, and NRI's plugin_config_path is byte-for-byte the default.
  grep -A1 -F "[plugins.'io.containerd.cri.v1.images'.registry]" "${cfg}" | grep -q 'config_path = "/etc/containerd/certs.d"'
  grep -qxF "    plugin_config_path = '/etc/nri/conf.d'" "${cfg}"
  # Apart from those two keys the file is containerd's default.
  diff <(sed -e 's/SystemdCgroup = true/SystemdCgroup = false/' \
    -e "s|config_path = \"/etc/containerd/certs.d\"|config_path = ''|" "${cfg}") \
    "${FIXTURES}/containerd-default-v3.toml"
}

@test "prereqs: a second run changes no file and restarts nothing" {
  run "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  local first
  first="$(snapshot_root)"
  : >"${STUB_LOG}"
  run "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_equal "$(snapshot_root)" "${first}"
  assert_not_called '^systemctl restart'
  assert_not_called '^sysctl --system'
  assert_not_called '^apt-get (update|install)'
  # Still checks and refreshes: keyrings are downloaded and overwritten, services enabled.
  [ "$(count_calls '^gpg --batch --yes --dearmor')" -eq 2 ]
  assert_call 'systemctl enable --now containerd'
  [ -f "${GSHARE_ROOT}/etc/containerd/config.toml" ]
  [ ! -f "${GSHARE_ROOT}/etc/containerd/config.toml.bak" ]
  [ "$(grep -c 'pkgs.k8s.io' "${GSHARE_ROOT}/etc/apt/sources.list.d/kubernetes.list")" -eq 1 ]
}

@test "prereqs: keyrings are overwritten when upstream changes" {
  run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  echo v2 >"${STUB_STATE}/key-version"
  : >"${STUB_LOG}"
  run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  grep -q 'Release.key v2' "${GSHARE_ROOT}/etc/apt/keyrings/kubernetes-apt-keyring.gpg"
  ! grep -q 'Release.key v1' "${GSHARE_ROOT}/etc/apt/keyrings/kubernetes-apt-keyring.gpg"
  [ "$(ls "${GSHARE_ROOT}/etc/apt/keyrings" | wc -l)" -eq 1 ]
  # Packages are installed already, so the new key costs no apt-get update.
  assert_not_called '^apt-get install'
}

@test "prereqs --gpu: installs the ubuntu-drivers recommendation when nvidia-smi fails, and flags a reboot" {
  run --separate-stderr "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_order '^curl -fsSL -o .*/nvidia-container-toolkit-keyring.gpg.asc https://nvidia.github.io/libnvidia-container/gpgkey$' \
    '^apt-get install -y -q containerd nfs-common kubelet kubeadm kubectl nvidia-container-toolkit$' \
    '^nvidia-smi$' '^apt-get install -y -q ubuntu-drivers-common$' '^ubuntu-drivers install$' \
    '^containerd config default$' '^nvidia-ctk runtime configure --runtime=containerd --config=' \
    '^systemctl restart containerd$'
  assert_equal "${output}" "GSHARE_REBOOT_REQUIRED boot_id=boot-1111"
  assert_not_called '^reboot'
  grep -q 'reboot this node' <<<"${stderr}"
  assert_equal "$(cat "${GSHARE_ROOT}/etc/apt/sources.list.d/nvidia-container-toolkit.list")" \
    'deb [signed-by=/etc/apt/keyrings/nvidia-container-toolkit-keyring.gpg] https://nvidia.github.io/libnvidia-container/stable/deb/$(ARCH) /'
  # The nvidia runtime added by nvidia-ctk gets SystemdCgroup too.
  local cfg="${GSHARE_ROOT}/etc/containerd/config.toml"
  grep -qF "[plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.nvidia.options]" "${cfg}"
  [ "$(grep -c 'SystemdCgroup = true' "${cfg}")" -eq 2 ]
  ! grep -q 'SystemdCgroup = false' "${cfg}"
}

@test "prereqs --gpu: a node with a working nvidia-smi is left alone" {
  touch "${STUB_STATE}/nvidia-smi-ok"
  run --separate-stderr "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_call 'nvidia-smi'
  assert_not_called '^ubuntu-drivers|ubuntu-drivers-common|nvidia-driver|^reboot'
  [ -z "${output}" ]
  grep -q 'nvidia-smi works' <<<"${stderr}"
}

@test "prereqs --gpu: NVIDIA_DRIVER pins the package" {
  NVIDIA_DRIVER=nvidia-driver-550-server run --separate-stderr "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_call 'apt-get install -y -q nvidia-driver-550-server'
  assert_not_called '^ubuntu-drivers'
  assert_equal "${output}" "GSHARE_REBOOT_REQUIRED boot_id=boot-1111"
}

@test "prereqs --gpu: NVIDIA_DRIVER=skip installs no driver and asks for no reboot" {
  NVIDIA_DRIVER=skip run --separate-stderr "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_not_called '^ubuntu-drivers|nvidia-driver|^reboot'
  assert_call 'apt-get install -y -q containerd nfs-common kubelet kubeadm kubectl nvidia-container-toolkit'
  [ -z "${output}" ]
  grep -q 'NVIDIA_DRIVER=skip' <<<"${stderr}"
}

@test "prereqs --gpu: NVIDIA_DRIVER_REBOOT=1 reboots last, after the new driver" {
  NVIDIA_DRIVER_REBOOT=1 run --separate-stderr "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_order '^ubuntu-drivers install$' '^systemctl enable --now kubelet$' '^reboot$'
  [ "$(last_line_of '.')" -eq "$(line_of '^reboot$')" ]
}

@test "prereqs --gpu: NVIDIA_DRIVER_REBOOT=1 does not reboot a node whose driver works" {
  touch "${STUB_STATE}/nvidia-smi-ok"
  NVIDIA_DRIVER_REBOOT=1 run "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  assert_not_called '^reboot'
}

@test "prereqs: LOCAL_REGISTRY and LOCAL_REGISTRY_MIRROR write the registry trust in the same run" {
  LOCAL_REGISTRY=10.0.0.12:5000 LOCAL_REGISTRY_MIRROR=10.0.0.12:5001 run "${SCRIPT}" prereqs
  [ "${status}" -eq 0 ]
  [ -f "${GSHARE_ROOT}/etc/containerd/certs.d/10.0.0.12:5000/hosts.toml" ]
  [ -f "${GSHARE_ROOT}/etc/containerd/certs.d/10.0.0.12:5001/hosts.toml" ]
  [ -f "${GSHARE_ROOT}/etc/containerd/certs.d/docker.io/hosts.toml" ]
  [ "$(count_calls '^systemctl restart containerd')" -eq 1 ]
}

@test "prereqs: a failing command stops the run with a non-zero status" {
  touch "${STUB_STATE}/fail.apt-get"
  run "${SCRIPT}" prereqs
  [ "${status}" -ne 0 ]
  assert_not_called '^containerd config default|^systemctl'
}

@test "node subcommands never write outside GSHARE_ROOT" {
  local paths=(/etc/fstab /etc/passwd /etc/containerd /etc/containerd/config.toml /etc/modules-load.d/k8s.conf
    /etc/sysctl.d/99-kubernetes-cri.conf /etc/apt/keyrings /etc/apt/sources.list.d/kubernetes.list
    /etc/modprobe.d/zfs.conf /etc/sudoers.d/gshare-csi /etc/kubernetes /home/gshare-csi)
  local before after p
  before="$(for p in "${paths[@]}"; do stat -c '%n %Y %s' "${p}" 2>/dev/null || echo "${p} absent"; done)"
  run "${SCRIPT}" prereqs --gpu
  [ "${status}" -eq 0 ]
  LOCAL_REGISTRY=10.0.0.12:5000 run "${SCRIPT}" registry
  [ "${status}" -eq 0 ]
  STORAGE_CSI_PUBKEY="ssh-rsa AAAAB3Nza test" run "${SCRIPT}" storage /dev/vdb
  [ "${status}" -eq 0 ]
  run "${SCRIPT}" init
  [ "${status}" -eq 0 ]
  run "${SCRIPT}" join "kubeadm join 10.0.0.10:6443 --token a.b"
  [ "${status}" -eq 0 ]
  after="$(for p in "${paths[@]}"; do stat -c '%n %Y %s' "${p}" 2>/dev/null || echo "${p} absent"; done)"
  assert_equal "${after}" "${before}"
  [ -f "${GSHARE_ROOT}/etc/containerd/config.toml" ]
  [ -f "${GSHARE_ROOT}/etc/sudoers.d/gshare-csi" ]
}
