# The backends case's toolhost config (go run ./bench/driver -cases
# backends): an http tool reading a 2 KB JSON document through a result
# mapping, the same document as text, and an exec tool. BENCH_DOCS is the
# driver's loopback HTTP server for this case; the driver makes the same
# GET and the same fork/exec itself, as the baselines.

server {
  name    = "toolhost-bench-backends"
  version = "1.0.0"
}

tool "doc" {
  description = "A 2 KB JSON document, mapped"
  param "id" {
    type = string
  }
  http {
    url     = "${env("BENCH_DOCS")}/doc/${param.id}"
    timeout = "10s"
  }
  result {
    field "id" {
      path = "id"
      type = string
    }
    field "name" {
      path = "name"
      type = string
    }
    field "price" {
      path = "price"
      type = number
    }
    field "owner" {
      path = "owner.login"
      type = string
    }
    field "skus" {
      path = "items.#.sku"
      type = list(string)
    }
  }
}

tool "doc_text" {
  description = "The same 2 KB JSON document, as it came"
  param "id" {
    type = string
  }
  http {
    url     = "${env("BENCH_DOCS")}/doc/${param.id}"
    timeout = "10s"
  }
}

tool "say_hello" {
  description = "Returns a friendly greeting: the call's cost without a backend"
  param "name" {
    type = string
  }
  template {
    text = "hello ${param.name}"
  }
}

tool "echo" {
  description = "Echo input"
  param "text" {
    type = string
  }
  exec {
    command = ["printf", "%s", param.text]
    timeout = "5s"
  }
}
