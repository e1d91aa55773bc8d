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

# A claim may be an argument of the script, which reads it as "$1"; not
# the script itself, nor a variable the program loads code from.
tool "claim_as_script_argument" {
  exec {
    command = ["sh", "-c", "echo \"$1\"", "sh", claim("email")]
  }
}

tool "claim_as_whole_script" {
  exec {
    command = concat(["sh", "-c"], [claim("script")]) # ERROR: Parameter inside a script # DETAIL: the claim "script" of the caller's token
  }
}

tool "claim_in_loader_env" {
  exec {
    command = ["ls"]
    env     = { LD_PRELOAD = claim("lib") } # ERROR: Parameter chooses the program
  }
}

tool "claim_as_awk_program" {
  exec {
    command = ["awk", format("/%s/ { print }", claim("pattern")), "file.txt"] # ERROR: Parameter inside a script
  }
}
