-- Which cluster a kubeconfig reaches: the uid of its kube-system namespace, which lives as long as the cluster.
-- Recorded when the attach probes the apiserver; a kubeconfig rotated in place (PATCH kubeconfig) must reach the
-- same uid, so a kubeconfig of another cluster is refused instead of silently moving the cluster's sessions.
alter table clusters add column kube_system_uid text;
