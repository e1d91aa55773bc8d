# The fixture of the MCP conformance suite (server mode): the tools,
# resources and prompts its scenarios call, under the names they expect.
# conformance/run.sh serves this directory (this file and the other *.hcl
# files beside it, one per feature) at /mcp; scenarios that need features a
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
    completions = ["paris", "park", "party", "test", "testing"]
  }
  arg "arg2" {
    description = "Second test argument"
  }
  message "user" {
    text = "Prompt with arguments: arg1='${arg.arg1}', arg2='${arg.arg2}'"
  }
}

# tools-call-image: a 1x1 PNG from a file, no backend needed.
tool "test_image_content" {
  description = "Returns an image (a 1x1 PNG)."
  result {
    image {
      file = "files/static-binary.png"
    }
  }
}

# tools-call-audio: a short WAV from a file.
tool "test_audio_content" {
  description = "Returns a short sound (WAV)."
  result {
    audio {
      file = "files/beep.wav"
    }
  }
}

# tools-call-embedded-resource
tool "test_embedded_resource" {
  description = "Returns an embedded text resource."
  result {
    resource {
      uri       = "test://embedded-resource"
      mime_type = "text/plain"
      text      = "This is an embedded resource content."
    }
  }
}

# tools-call-mixed-content: text, an image and an embedded resource.
tool "test_multiple_content_types" {
  description = "Returns text, an image and an embedded resource."
  result {
    text {
      text = "Multiple content types test:"
    }
    image {
      file = "files/static-binary.png"
    }
    resource {
      uri       = "test://mixed-content-resource"
      mime_type = "application/json"
      text      = jsonencode({ test = "data", value = 123 })
    }
  }
}

# tools-call-with-logging: standard error lines become log notifications.
tool "test_tool_with_logging" {
  description = "Logs three messages at info level while it runs."
  exec {
    command    = ["sh", "-c", "echo 'Tool execution started' >&2; sleep 0.05; echo 'Tool processing data' >&2; sleep 0.05; echo 'Tool execution completed' >&2; echo done"]
    stderr_log = "info"
    timeout    = "5s"
  }
}

# tools-call-with-progress: ::progress lines on standard error.
tool "test_tool_with_progress" {
  description = "Reports progress 0, 50 and 100 of 100."
  exec {
    command = ["sh", "-c", "echo '::progress 0/100' >&2; sleep 0.05; echo '::progress 50/100 halfway' >&2; sleep 0.05; echo '::progress 100/100 done' >&2; echo done"]
    timeout = "5s"
  }
}

# tools-call-elicitation: asks the user before it runs.
tool "test_elicitation" {
  description = "Asks the user to confirm the message, then echoes it."
  param "message" {
    type        = string
    description = "The message to show the user."
  }
  confirm = param.message
  template {
    text = "User response: accepted (${param.message})"
  }
}

# resources-subscribe, resources-unsubscribe
resource "watched" {
  uri         = "test://watched-resource"
  description = "A resource clients may subscribe to."
  mime_type   = "application/json"
  file        = "files/watched.json"
}

# prompts-get-embedded-resource
prompt "test_prompt_with_embedded_resource" {
  description = "A prompt that embeds a resource."
  arg "resourceUri" {
    description = "URI of the resource to embed"
  }
  message "user" {
    resource {
      uri       = arg.resourceUri
      mime_type = "text/plain"
      text      = "Embedded resource content for testing."
    }
  }
  message "user" {
    text = "Please process the embedded resource above."
  }
}

# prompts-get-with-image
prompt "test_prompt_with_image" {
  description = "A prompt with an image."
  message "user" {
    image {
      file = "files/static-binary.png"
    }
  }
  message "user" {
    text = "Please analyze the image above."
  }
}

# elicitation-sep1034-defaults: a form whose fields have defaults.
tool "test_elicitation_sep1034_defaults" {
  description = "Asks the user a form with a default for every field."
  ask {
    message = "Test client default value handling - please accept with defaults"
    field "name" {
      type        = string
      description = "User name"
      default     = "John Doe"
    }
    field "age" {
      type        = integer
      description = "User age"
      default     = 30
    }
    field "score" {
      type        = number
      description = "User score"
      default     = 95.5
    }
    field "status" {
      type        = string
      description = "User status"
      enum        = ["active", "inactive", "pending"]
      default     = "active"
    }
    field "verified" {
      type        = bool
      description = "Verification status"
      default     = true
    }
  }
  template {
    text = "Elicitation completed: action=accept, content=${jsonencode(answer)}"
  }
}

# elicitation-sep1330-enums: the five kinds of enum fields.
tool "test_elicitation_sep1330_enums" {
  description = "Asks the user a form with every kind of enum field."
  ask {
    message = "Pick some options"
    field "untitledSingle" {
      type = string
      enum = ["option1", "option2", "option3"]
    }
    field "titledSingle" {
      type        = string
      enum        = ["value1", "value2", "value3"]
      enum_titles = ["First Option", "Second Option", "Third Option"]
    }
    field "legacyEnum" {
      type       = string
      enum       = ["opt1", "opt2", "opt3"]
      enum_names = ["Option One", "Option Two", "Option Three"]
    }
    field "untitledMulti" {
      type = list(string)
      enum = ["option1", "option2", "option3"]
    }
    field "titledMulti" {
      type        = list(string)
      enum        = ["value1", "value2", "value3"]
      enum_titles = ["First Choice", "Second Choice", "Third Choice"]
    }
  }
  template {
    text = "Elicitation completed: action=accept, content=${jsonencode(answer)}"
  }
}

# json-schema-2020-12: an input schema written by hand, with $schema, $defs
# and $ref, which param blocks cannot express, and the SEP-2106 vocabulary
# the 2026-07-28 scenario checks: $anchor, allOf/anyOf, if/then/else.
tool "json_schema_2020_12_tool" {
  description = "Tool with JSON Schema 2020-12 features"
  input_schema = {
    "$schema" = "https://json-schema.org/draft/2020-12/schema"
    type      = "object"
    "$defs" = {
      address = {
        "$anchor" = "addressDef"
        type      = "object"
        properties = {
          street = { type = "string" }
          city   = { type = "string" }
        }
      }
    }
    properties = {
      name          = { type = "string" }
      address       = { "$ref" = "#/$defs/address" }
      contactMethod = { type = "string", enum = ["phone", "email"] }
      phone         = { type = "string" }
      email         = { type = "string" }
    }
    allOf = [{ anyOf = [{ required = ["phone"] }, { required = ["email"] }] }]
    if = {
      properties = { contactMethod = { const = "phone" } }
      required   = ["contactMethod"]
    }
    then                 = { required = ["phone"] }
    else                 = { required = ["email"] }
    additionalProperties = false
  }
  template {
    text = "Hello ${coalesce(param.name, "stranger")}${param.address == null ? "" : format(" of %s", try(param.address.city, "nowhere"))}"
  }
}
