#!/usr/bin/env bats
# storage (storage node), storage-csi (control plane), registry (every node), and their manifests.

load helpers

PUBKEY="ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7test gshare-csi"

setup() {
  common_setup
  seed_node_root
  echo "root:x:0:0:root:/root:/bin/bash" >"${GSHARE_ROOT}/etc/passwd"
  mkdir -p "${GSHARE_ROOT}/sys/module/zfs/parameters"
  echo 0 >"${GSHARE_ROOT}/sys/module/zfs/parameters/zfs_arc_max"
}

@test "storage: packages, pool gshare on the device, datasets, ARC, user, sudoers, NFS in order" {
  STORAGE_CSI_PUBKEY="${PUBKEY}" run "${SCRIPT}" storage /dev/vdb
  [ "${status}" -eq 0 ]
  assert_order '^apt-get install -y -q zfsutils-linux nfs-kernel-server$' '^zpool list -H -o name gshare$' \
    '^zpool create -o ashift=12 -O compression=lz4 -O atime=off -O xattr=sa -O acltype=posixacl -O mountpoint=/gshare gshare /dev/vdb$' \
    '^zfs create gshare/volumes$' '^zfs create gshare/snapshots$' \
    '^useradd --create-home --home-dir /home/gshare-csi --shell /bin/bash gshare-csi$' \
    '^chown -R gshare-csi:gshare-csi .*/home/gshare-csi/.ssh$' '^visudo -cf ' '^systemctl enable --now nfs-server$'
  assert_equal "$(cat "${GSHARE_ROOT}/etc/modprobe.d/zfs.conf")" "options zfs zfs_arc_max=3221225472"
  assert_equal "$(cat "${GSHARE_ROOT}/sys/module/zfs/parameters/zfs_arc_max")" "3221225472"
  assert_equal "$(cat "${GSHARE_ROOT}/home/gshare-csi/.ssh/authorized_keys")" "${PUBKEY}"
  [ "$(stat -c %a "${GSHARE_ROOT}/home/gshare-csi/.ssh/authorized_keys")" = 600 ]
  [ "$(stat -c %a "${GSHARE_ROOT}/home/gshare-csi/.ssh")" = 700 ]
  # sudo limited to zfs, exportfs and chown.
  grep -qxF 'gshare-csi ALL=(root) NOPASSWD: /usr/sbin/zfs, /usr/sbin/exportfs, /usr/bin/chown' \
    "${GSHARE_ROOT}/etc/sudoers.d/gshare-csi"
  [ "$(grep -vc '^#' "${GSHARE_ROOT}/etc/sudoers.d/gshare-csi")" -eq 1 ]
  [ "$(stat -c %a "${GSHARE_ROOT}/etc/sudoers.d/gshare-csi")" = 440 ]
}

@test "storage: a second run leaves the pool, datasets, user and files alone" {
  STORAGE_CSI_PUBKEY="${PUBKEY}" run "${SCRIPT}" storage /dev/vdb
  [ "${status}" -eq 0 ]
  local first
  first="$(snapshot_root)"
  : >"${STUB_LOG}"
  STORAGE_CSI_PUBKEY="${PUBKEY}" run "${SCRIPT}" storage /dev/vdb
  [ "${status}" -eq 0 ]
  assert_equal "$(snapshot_root)" "${first}"
  assert_call 'zpool list -H -o name gshare'
  assert_not_called '^zpool create|^zfs create|^useradd|^apt-get'
  [ "$(grep -c '^gshare-csi:' "${GSHARE_ROOT}/etc/passwd")" -eq 1 ]
}

@test "storage: STORAGE_VDEVS builds a mirror and ZFS_ARC_MAX_MB sets the ARC limit" {
  STORAGE_VDEVS="mirror /dev/vdb /dev/vdc" ZFS_ARC_MAX_MB=1024 STORAGE_CSI_PUBKEY="${PUBKEY}" \
    run "${SCRIPT}" storage /dev/vdb
  [ "${status}" -eq 0 ]
  assert_called '^zpool create .* gshare mirror /dev/vdb /dev/vdc$'
  assert_equal "$(cat "${GSHARE_ROOT}/etc/modprobe.d/zfs.conf")" "options zfs zfs_arc_max=1073741824"
}

@test "storage: a failing zpool create stops with a hint before datasets and users" {
  touch "${STUB_STATE}/fail.zpool"
  STORAGE_CSI_PUBKEY="${PUBKEY}" run --separate-stderr "${SCRIPT}" storage /dev/vdb
  [ "${status}" -eq 1 ]
  assert_not_called '^zfs create|^useradd'
  grep -q 'wipefs' <<<"${stderr}"
}

@test "storage-csi: democratic-csi with the host and the key filled into a private copy of the values" {
  local key="${BATS_TEST_TMPDIR}/storage-csi-key"
  printf -- '-----BEGIN RSA PRIVATE KEY-----\nMIIEline1\nline2==\n-----END RSA PRIVATE KEY-----\n' >"${key}"
  run "${SCRIPT}" storage-csi 10.0.0.12 "${key}"
  [ "${status}" -eq 0 ]
  assert_called '^helm upgrade --install gshare-storage democratic-csi --repo https://democratic-csi.github.io/charts --namespace gshare-storage --create-namespace -f .*/democratic-csi-values.yaml$'
  local values="${STUB_STATE}/helm-values/gshare-storage.1.yaml"
  [ -f "${values}" ]
  ! grep -q '__STORAGE' "${values}"
  grep -qxF '      host: 10.0.0.12' "${values}"
  grep -qxF '      shareHost: 10.0.0.12' "${values}"
  grep -A4 -xF '      privateKey: |' "${values}" | grep -qxF '        -----BEGIN RSA PRIVATE KEY-----'
  grep -qxF '        line2==' "${values}"
  grep -qxF '        -----END RSA PRIVATE KEY-----' "${values}"
  # The repository's file keeps its placeholders: no key is ever written into the checkout.
  grep -q '__STORAGE_CSI_PRIVATE_KEY__' "${REPO_ROOT}/deploy/storage/democratic-csi-values.yaml"
}

@test "storage-csi: a driver under the old release gshare-csi is named, with how to move it, and nothing is installed" {
  local key="${BATS_TEST_TMPDIR}/storage-csi-key"
  printf -- '-----BEGIN RSA PRIVATE KEY-----\nMIIEline1\n-----END RSA PRIVATE KEY-----\n' >"${key}"
  touch "${STUB_STATE}/helm-release.gshare-csi"
  run --separate-stderr "${SCRIPT}" storage-csi 10.0.0.12 "${key}"
  [ "${status}" -eq 1 ]
  [[ "${stderr}" == *"old release gshare-csi in namespace democratic-csi"* ]]
  [[ "${stderr}" == *"helm -n democratic-csi uninstall gshare-csi"* ]]
  assert_not_called '^helm upgrade'
}

@test "democratic-csi values: zfs-generic-nfs, datasets, quotas, share strategy, sudo, StorageClass gshare-data" {
  local v="${REPO_ROOT}/deploy/storage/democratic-csi-values.yaml"
  grep -qxF '    driver: zfs-generic-nfs' "${v}"
  grep -qxF '      datasetParentName: gshare/volumes' "${v}"
  grep -qxF '      detachedSnapshotsDatasetParentName: gshare/snapshots' "${v}"
  grep -qxF '      datasetEnableQuotas: true' "${v}"
  grep -qxF '      shareStrategy: setDatasetProperties' "${v}"
  grep -qxF '        sudoEnabled: true' "${v}"
  grep -qxF '      username: gshare-csi' "${v}"
  grep -qxF '  - name: gshare-data' "${v}"
  grep -qxF '    allowVolumeExpansion: true' "${v}"
  # Capacity published (CSIStorageCapacity), for pools on the default capacity_source csi.
  grep -qxF '  storageCapacity: true' "${v}"
  grep -qxF '      - --enable-capacity' "${v}"
  grep -qE 'ReadWriteOnce, ReadWriteMany and ReadOnlyMany' "${v}"
  # chmod is not in the sudoers list, so no datasetPermissionsMode.
  ! grep -qE '^[[:space:]]*datasetPermissionsMode' "${v}"
}

@test "registry manifest: push :5000 and docker.io mirror :5001 on the storage node, tolerating its taint" {
  local r="${REPO_ROOT}/deploy/registry/registry.yaml"
  grep -qF 'value: ":5000"' "${r}"
  grep -qF 'value: ":5001"' "${r}"
  grep -qF 'hostPort: 5000' "${r}"
  grep -qF 'hostPort: 5001' "${r}"
  grep -qF 'REGISTRY_PROXY_REMOTEURL' "${r}"
  [ "$(grep -cF 'gshare.io/role: storage' "${r}")" -eq 2 ]
  [ "$(grep -cF 'effect: NoSchedule' "${r}")" -eq 2 ]
  [ "$(grep -cF 'storageClassName: gshare-data' "${r}")" -eq 2 ]
}

@test "registry: hosts.toml for the registry, the mirror, and docker.io routed to the mirror" {
  mkdir -p "${GSHARE_ROOT}/etc/containerd"
  cp "${FIXTURES}/containerd-v2.toml" "${GSHARE_ROOT}/etc/containerd/config.toml"
  LOCAL_REGISTRY=10.0.0.12:5000 LOCAL_REGISTRY_MIRROR=10.0.0.12:5001 run "${SCRIPT}" registry
  [ "${status}" -eq 0 ]
  local d="${GSHARE_ROOT}/etc/containerd/certs.d"
  grep -qxF 'server = "http://10.0.0.12:5000"' "${d}/10.0.0.12:5000/hosts.toml"
  grep -qxF '[host."http://10.0.0.12:5000"]' "${d}/10.0.0.12:5000/hosts.toml"
  grep -qxF '  capabilities = ["pull", "resolve", "push"]' "${d}/10.0.0.12:5000/hosts.toml"
  grep -qxF 'server = "http://10.0.0.12:5001"' "${d}/10.0.0.12:5001/hosts.toml"
  grep -qxF 'server = "https://registry-1.docker.io"' "${d}/docker.io/hosts.toml"
  grep -qxF '[host."http://10.0.0.12:5001"]' "${d}/docker.io/hosts.toml"
  grep -qxF '  capabilities = ["pull", "resolve"]' "${d}/docker.io/hosts.toml"
  assert_call 'systemctl restart containerd'
}

@test "registry: config_path set once in an existing config, plugin_config_path untouched, backup kept" {
  mkdir -p "${GSHARE_ROOT}/etc/containerd"
  local cfg="${GSHARE_ROOT}/etc/containerd/config.toml"
  cp "${FIXTURES}/containerd-v2.toml" "${cfg}"
  LOCAL_REGISTRY=10.0.0.12:5000 run "${SCRIPT}" registry
  [ "${status}" -eq 0 ]
  [ "$(grep -cE '^[[:space:]]*config_path[[:space:]]*=' "${cfg}")" -eq 1 ]
  grep -qxF '      config_path = "/etc/containerd/certs.d"' "${cfg}"
  grep -qxF '    plugin_config_path = "/etc/nri/conf.d"' "${cfg}"
  # Only that one line differs from the original, which is kept as config.toml.bak.
  diff <(sed 's|config_path = "/etc/containerd/certs.d"|config_path = ""|' "${cfg}") "${FIXTURES}/containerd-v2.toml"
  cmp "${cfg}.bak" "${FIXTURES}/containerd-v2.toml"
}

@test "registry: a config without config_path gets it added once, run after run" {
  mkdir -p "${GSHARE_ROOT}/etc/containerd"
  local cfg="${GSHARE_ROOT}/etc/containerd/config.toml"
  cp "${FIXTURES}/containerd-no-config-path.toml" "${cfg}"
  LOCAL_REGISTRY=10.0.0.12:5000 run "${SCRIPT}" registry
  [ "${status}" -eq 0 ]
  local first
  first="$(snapshot_root)"
  : >"${STUB_LOG}"
  LOCAL_REGISTRY=10.0.0.12:5000 run "${SCRIPT}" registry
  [ "${status}" -eq 0 ]
  assert_equal "$(snapshot_root)" "${first}"
  assert_not_called '^systemctl restart'
  [ "$(grep -cE '^[[:space:]]*config_path[[:space:]]*=' "${cfg}")" -eq 1 ]
  grep -A1 -xF '[plugins."io.containerd.grpc.v1.cri".registry]' "${cfg}" |
    grep -qxF '  config_path = "/etc/containerd/certs.d"'
  grep -qxF '    plugin_config_path = "/etc/nri/conf.d"' "${cfg}"
  [ "$(grep -c 'plugin_config_path' "${cfg}")" -eq 1 ]
}

@test "registry: an existing other config_path keeps its directories and gains certs.d" {
  mkdir -p "${GSHARE_ROOT}/etc/containerd"
  local cfg="${GSHARE_ROOT}/etc/containerd/config.toml"
  sed 's|config_path = ""|config_path = "/etc/docker/certs.d"|' "${FIXTURES}/containerd-v2.toml" >"${cfg}"
  LOCAL_REGISTRY=10.0.0.12:5000 run "${SCRIPT}" registry
  [ "${status}" -eq 0 ]
  grep -qxF '      config_path = "/etc/containerd/certs.d:/etc/docker/certs.d"' "${cfg}"
  [ "$(grep -cE '^[[:space:]]*config_path[[:space:]]*=' "${cfg}")" -eq 1 ]
}

@test "registry: without a containerd config it fails and asks for prereqs" {
  LOCAL_REGISTRY=10.0.0.12:5000 run --separate-stderr "${SCRIPT}" registry
  [ "${status}" -eq 1 ]
  grep -q 'prereqs' <<<"${stderr}"
  [ ! -d "${GSHARE_ROOT}/etc/containerd/certs.d" ]
}
