# The fixture of the MCP conformance suite (server mode): the tools,
# resources and prompts its scenarios call, under the names they expect.
# conformance/run.sh serves it at /mcp; scenarios that need features a
# declarative host does not have are listed, with reasons, in
# conformance/expected-failures.yml.

server {
  name         = "toolhost-conformance"
  version      = "1.0.0"
  instructions = "Fixture for the MCP conformance suite."
}

# tools-call-simple-text
tool "test_simple_text" {
  description = "Returns a simple text response."
  template {
    text = "This is a simple text response for testing."
  }
}

# tools-call-error: a tool that always fails, answered with isError.
tool "test_error_handling" {
  description = "Always fails, to test error reporting."
  exec {
    command = ["sh", "-c", "echo 'This tool intentionally returns an error for testing' >&2; exit 1"]
    timeout = "5s"
  }
}

# Used by server-sse-multiple-streams and the like: any tool with an
# argument.
tool "echo" {
  description = "Echoes its text."
  param "text" {
    type        = string
    description = "The text to echo."
  }
  template {
    text = param.text
  }
}

# resources-read-text
resource "static_text" {
  uri         = "test://static-text"
  description = "A static text resource."
  mime_type   = "text/plain"
  file        = "files/static-text.txt"
}

# resources-read-binary: a 1x1 PNG, served as a base64 blob.
resource "static_binary" {
  uri         = "test://static-binary"
  description = "A static binary resource (a 1x1 PNG)."
  mime_type   = "image/png"
  file        = "files/static-binary.png"
}

# resources-templates-read: test://template/123/data is files/template/123.
resource_template "template_data" {
  uri_template = "test://template/{id}/data"
  description  = "Data for an ID."
  mime_type    = "application/json"
  dir          = "files/template"
}

# prompts-get-simple
prompt "test_simple_prompt" {
  description = "A simple prompt without arguments."
  message "user" {
    text = "This is a simple prompt for testing."
  }
}

# prompts-get-with-args
prompt "test_prompt_with_arguments" {
  description = "A prompt with two required arguments."
  arg "arg1" {
    description = "First test argument"
  }
  arg "arg2" {
    description = "Second test argument"
  }
  message "user" {
    text = "Prompt with arguments: arg1='${arg.arg1}', arg2='${arg.arg2}'"
  }
}
