# Read-only kubectl tools: list resources, describe one, read a pod's
# logs, in the cluster of the current kubeconfig context (or the context
# KUBE_CONTEXT names). Namespaces and names are checked against the
# patterns Kubernetes itself gives them, so no value can be an option;
# kinds are an enum without secrets, so no tool shows a secret's data.
# Grant the credentials only get, list and watch (the "view" ClusterRole):
# the tools never ask for more, and the cluster then refuses more.

server {
  name         = "kubectl"
  version      = "1.0.0"
  instructions = "Look into a Kubernetes cluster: kube_get lists resources, kube_describe explains one (with its events), kube_logs reads a pod's logs. Nothing here changes the cluster."
}

tool "kube_get" {
  description = "List resources of a kind in a namespace, one a line with their status (kubectl get -o wide)."
  annotations {
    read_only_hint = true
  }
  param "kind" {
    type        = string
    description = "The kind of resource."
    enum        = ["pods", "deployments", "statefulsets", "daemonsets", "replicasets", "jobs", "cronjobs", "services", "ingresses", "configmaps", "persistentvolumeclaims", "events", "nodes", "namespaces"]
  }
  # A namespace is a DNS-1123 label.
  param "namespace" {
    type        = string
    description = "The namespace, such as default or kube-system."
    default     = "default"
    pattern     = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
  }
  exec {
    command = ["kubectl", "get", param.kind, "--namespace", param.namespace, "--output", "wide", "--request-timeout", "15s", "--context", env("KUBE_CONTEXT", "")]
    timeout = "20s"
  }
  # validate and call --offline answer from the recording: neither needs
  # kubectl nor a cluster.
  offline = "example"
  example "pods" {
    args     = { kind = "pods", namespace = "shop" }
    response = file("testdata/get-pods.txt")
    result   = file("testdata/get-pods.txt")
  }
  example "secrets are not a kind" {
    args  = { kind = "secrets" }
    error = "not one of the allowed values"
  }
  example "an option for a namespace" {
    args  = { kind = "pods", namespace = "--all-namespaces" }
    error = "pattern"
  }
}

tool "kube_describe" {
  description = "Describe one resource: its spec, status, conditions and recent events (kubectl describe)."
  annotations {
    read_only_hint = true
  }
  param "kind" {
    type        = string
    description = "The kind of resource."
    enum        = ["pod", "deployment", "statefulset", "daemonset", "replicaset", "job", "cronjob", "service", "ingress", "configmap", "persistentvolumeclaim", "node", "namespace"]
  }
  # A name is a DNS-1123 subdomain.
  param "name" {
    type        = string
    description = "The resource's name, as kube_get lists it."
    pattern     = "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
  }
  param "namespace" {
    type        = string
    description = "The namespace (ignored for nodes and namespaces)."
    default     = "default"
    pattern     = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
  }
  exec {
    command    = ["kubectl", "describe", param.kind, param.name, "--namespace", param.namespace, "--request-timeout", "15s", "--context", env("KUBE_CONTEXT", "")]
    timeout    = "20s"
    max_output = 262144
  }
  offline = "example"
  example "a deployment" {
    args     = { kind = "deployment", name = "checkout", namespace = "shop" }
    response = file("testdata/describe-deployment.txt")
    result   = file("testdata/describe-deployment.txt")
  }
}

tool "kube_logs" {
  description = "The last lines a pod's container wrote (kubectl logs); previous = true reads the run before the last restart."
  annotations {
    read_only_hint = true
  }
  param "pod" {
    type        = string
    description = "The pod's name, as kube_get pods lists it."
    pattern     = "^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$"
  }
  param "namespace" {
    type    = string
    default = "default"
    pattern = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
  }
  param "container" {
    type        = string
    description = "The container, when the pod has more than one."
    required    = false
    pattern     = "^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$"
  }
  param "tail" {
    type        = integer
    description = "How many lines, from the end."
    default     = 100
    minimum     = 1
    maximum     = 2000
  }
  param "previous" {
    type    = bool
    default = false
  }
  exec {
    command = concat(
      ["kubectl", "logs", param.pod, "--namespace", param.namespace, "--tail=${param.tail}", "--previous=${param.previous}", "--request-timeout", "15s", "--context", env("KUBE_CONTEXT", "")],
      param.container == null ? [] : ["--container", param.container],
    )
    timeout    = "20s"
    max_output = 524288
  }
  offline = "example"
  example "the last lines" {
    args     = { pod = "checkout-7d9f8b6c5-x2x9q", namespace = "shop", tail = 3 }
    response = "2026-11-29T10:01:02Z INFO order placed id=1042\n2026-11-29T10:01:05Z WARN payment retry id=1042 attempt=2\n2026-11-29T10:01:07Z INFO payment accepted id=1042\n"
    result   = "2026-11-29T10:01:02Z INFO order placed id=1042\n2026-11-29T10:01:05Z WARN payment retry id=1042 attempt=2\n2026-11-29T10:01:07Z INFO payment accepted id=1042\n"
  }
}
