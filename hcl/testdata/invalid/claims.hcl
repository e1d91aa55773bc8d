server {
  auth {
    issuer   = "https://login.example.com"
    audience = "https://tools.example.com/mcp"
  }
}

# The claims a tool reads are known at load: the name is written out.
tool "dynamic_claim" {
  param "which" {}
  template {
    text = "${claim(param.which)}" # ERROR: Claim name not written out # DETAIL: claim("email")
  }
}

# A claim is the caller's text, as a parameter is: never a script's.
tool "claim_in_script" {
  exec {
    command = ["sh", "-c", "echo ${claim("email")}"] # ERROR: Parameter inside a script # DETAIL: the claim "email" of the caller's token
  }
}

# Nor in the host of a url.
tool "claim_in_host" {
  http {
    url = "https://${claim("tenant")}.example.com/items" # ERROR: Parameter in URL host
  }
}

# Nor in what is fixed at load.
tool "claim_in_timeout" {
  http {
    url     = "https://api.example.com/items"
    timeout = claim("timeout") # ERROR: Argument must be constant
  }
}

# claim() has no call to read a token from outside the backend, result,
# confirm and ask.
tool "claim_in_default" {
  param "who" {
    default = claim("email") # ERROR: claim() outside a call # DETAIL: where param can be used
  }
  template {
    text = "${param.who}"
  }
}

# A resource is the same for every client: it reads no caller's token.
resource_template "claim_in_template" {
  uri_template = "notes:///{name}"
  template {
    text = "${param.name} for ${claim("email")}" # ERROR: claim() in a resource # DETAIL: claim("email") is for tools and prompts
  }
}

# A prompt's messages may read claims; its description may not.
prompt "greet" {
  description = "Greets ${claim("name")}" # ERROR: claim() outside a call
  message "user" {
    text = "I am ${claim("name")}."
  }
}
