# A config that uses every block kind with template backends only. It must
# load with no diagnostics at all.
server {
  name         = "template-only"
  title        = "Template tools"
  version      = "2.0.0"
  instructions = "Greetings and time."
}

tool "say_hello" {
  description = "Returns a friendly greeting"
  param "name" {
    type        = string
    description = "The name to greet"
    min_length  = 1
  }
  template {
    text = "hello ${param.name}"
  }
}

tool "get_current_time" {
  description = "Current date and time"
  annotations {
    read_only_hint = true
  }
  param "format" {
    type    = string
    enum    = ["simple", "detailed"]
    default = "simple"
  }
  template {
    text = param.format == "simple" ? formatdate("YYYY-MM-DD hh:mm:ss", now()) : formatdate("EEEE, DD MMMM YYYY hh:mm:ss ZZZ", now())
  }
}

tool "search-v2" {
  title       = "Search"
  description = env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C", "Search the index.")
  param "query" {
    type       = string
    max_length = 200
    pattern    = "\\S"
  }
  param "limit" {
    type    = integer
    default = 5
    minimum = 1
    maximum = 20
  }
  param "tags" {
    type      = set(string)
    required  = false
    max_items = 3
  }
  param "filter" {
    type     = object({ field = string, value = optional(string) })
    required = false
  }
  template {
    mime_type = "application/json"
    text = jsonencode({
      query = param.query
      limit = param.limit
      tags  = param.tags == null ? [] : sort(param.tags)
      url   = "https://example.com/?q=${urlencode(param.query)}"
    })
  }
  result {
    field "query" {
      path = "query"
      type = string
    }
    field "limit" {
      path        = "limit"
      type        = integer
      description = "The limit applied."
    }
    field "first_tag" {
      path     = "tags.0"
      type     = string
      optional = true
    }
    field "url" {
      path = "url"
    }
  }
}

resource "note_a" {
  uri       = "notes:///a.md"
  title     = "Note A"
  mime_type = "text/markdown"
  file      = "notes/a.md"
}

resource_template "notes" {
  uri_template = "notes:///{path}"
  description  = "Markdown notes"
  dir          = "notes"
}

prompt "greet" {
  title       = "Greet someone"
  description = "Write a greeting"
  arg "name" {
    description = "Who"
  }
  arg "tone" {
    required = false
  }
  message "user" {
    text = "Greet ${arg.name} in a ${coalesce(arg.tone, "friendly")} tone."
  }
  message "assistant" {
    text = "Sure."
  }
}
