# claim() reads the caller's verified token: without an auth block in the
# server block, no call has one.
tool "whoami" {
  template {
    text = "You are ${claim("email")}." # ERROR: claim() without auth # DETAIL: Add server { auth { ... } }
  }
}

tool "team_lookup" {
  http {
    url     = "https://api.example.com/teams"
    query   = { member = claim("sub") } # ERROR: claim() without auth # DETAIL: "sub"
    headers = { "X-User" = claim("email") } # ERROR: claim() without auth
  }
}

prompt "greet" {
  message "user" {
    text = "I am ${claim("name")}." # ERROR: claim() without auth # DETAIL: Prompt "greet" reads the claim "name"
  }
}
