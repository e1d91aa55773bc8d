# The benchmark's toolhost config: the same tools as the hand-written
# baselines in bench/baselines/. BENCH_UPSTREAM is the driver's loopback
# HTTP server.

server {
  name    = "toolhost-bench"
  version = "1.0.0"
}

tool "say_hello" {
  description = "Returns a friendly greeting"
  param "name" {
    type        = string
    description = "The name to greet"
  }
  template {
    text = "hello ${param.name}"
  }
}

tool "fetch" {
  description = "A small JSON document"
  param "id" {
    type = string
  }
  http {
    url     = "${env("BENCH_UPSTREAM")}/small/${param.id}"
    timeout = "10s"
  }
}

tool "slow" {
  description = "A slow upstream"
  param "id" {
    type = string
  }
  http {
    url     = "${env("BENCH_UPSTREAM")}/slow/${param.id}"
    timeout = "10s"
  }
}

tool "big" {
  description = "Extracts from a large document"
  http {
    url          = "${env("BENCH_UPSTREAM")}/big"
    timeout      = "30s"
    max_response = 67108864
  }
  result {
    field "count" {
      path = "items.#"
      type = integer
    }
    field "top" {
      path = "items.#(score==999)#.{id,name}"
      type = list(object({ id = integer, name = string }))
    }
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
