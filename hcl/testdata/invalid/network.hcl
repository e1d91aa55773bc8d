server {
  name        = "network"
  allow_hosts = ["api.example.com", "https://bad.example.com/"] # ERROR: Invalid allow_hosts entry # DETAIL: "https://bad.example.com/" is not a host name.
  deny_private = true
  max_concurrent_calls = 0 # ERROR: Invalid max_concurrent_calls
}

tool "allowed" {
  http {
    url = "https://api.example.com/v1"
  }
}

tool "elsewhere" {
  http {
    url = "https://other.example.net/v1" # ERROR: Host not allowed
  }
}

tool "narrowed" {
  http {
    url         = "https://api.example.com/v1"
    allow_hosts = ["*.example.com", "api.example.com:443"] # ERROR: Invalid allow_hosts entry # DETAIL: Write "api.example.com".
  }
}
