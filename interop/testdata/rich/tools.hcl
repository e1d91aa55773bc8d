# Fixture of rich.test.mjs: every kind of content item, logs, progress,
# confirmation, completions, icons and resources served by backends.
# RICH_UPSTREAM is the test's local HTTP server.

server {
  name               = "rich"
  version            = "1.0.0"
  progress_heartbeat = "100ms"
}

resource "report" {
  uri         = "docs://report"
  description = "The report"
  mime_type   = "text/markdown"
  file        = "report.md"
}

resource "generated" {
  uri       = "gen://hello"
  mime_type = "text/plain"
  template {
    text = "generated ${upper("hello")}"
  }
}

resource_template "sizes" {
  uri_template = "gen://size/{n}"
  description  = "A sentence about n bytes."
  exec {
    command = ["printf", "%s bytes", param.n]
  }
}

resource_template "notes" {
  uri_template = "notes:///{path}"
  mime_type    = "text/markdown"
  dir          = "notes"
}

tool "image_file" {
  description = "A PNG from a file."
  result {
    image {
      file = "red.png"
    }
  }
}

tool "audio_file" {
  description = "A WAV from a file."
  result {
    audio {
      file = "beep.wav"
    }
  }
}

tool "image_http" {
  description = "A PNG from an HTTP response, with no result block."
  http {
    url = "${env("RICH_UPSTREAM")}/red.png"
  }
}

tool "image_exec" {
  description = "A PNG printed by a command."
  exec {
    command = ["cat", "red.png"]
    binary  = true
  }
}

tool "image_json" {
  description = "A PNG as base64 in a JSON response, with a caption."
  http {
    url = "${env("RICH_UPSTREAM")}/picture.json"
  }
  result {
    field "caption" {
      path = "caption"
      type = string
    }
    image {
      path      = "png_base64"
      mime_type = "image/png"
    }
  }
}

tool "embed_and_link" {
  description = "Text, an embedded resource and a link to it."
  param "who" {
    type = string
  }
  result {
    text {
      text = "Report for ${param.who}:"
    }
    resource {
      uri = "docs://report"
    }
    resource_link {
      uri = "docs://report"
    }
  }
}

tool "logs" {
  description = "Logs two lines at info."
  exec {
    command    = ["sh", "-c", "echo one >&2; echo two >&2; echo out"]
    stderr_log = "info"
  }
}

tool "debug_logs" {
  description = "Logs a line at debug."
  exec {
    command    = ["sh", "-c", "echo quiet >&2; echo out"]
    stderr_log = "debug"
  }
}

tool "http_logged" {
  description = "An http call, logged at debug."
  http {
    url = "${env("RICH_UPSTREAM")}/picture.json"
  }
}

# Its reports are spaced more than ProgressInterval (100 ms) apart, so
# that none is coalesced with the next, however slowly the machine runs.
tool "reports_progress" {
  description = "Reports progress, once backwards."
  exec {
    command = ["sh", "-c", "echo '::progress 10/100 start' >&2; sleep 0.15; echo '::progress 5/100 backwards' >&2; echo '::progress 60/100 more' >&2; sleep 0.15; echo '::progress 100/100 done' >&2; echo ok"]
  }
}

tool "silent_slow" {
  description = "Takes half a second and says nothing."
  exec {
    command = ["sleep", "0.5"]
  }
}

tool "sleeper" {
  description = "Writes its pid to a file, then sleeps."
  param "pidfile" {
    type = string
  }
  exec {
    command = ["sh", "-c", "echo $$ > \"$1\"; exec sleep 30", "sh", param.pidfile]
    timeout = "60s"
  }
}

tool "delete_file" {
  description = "Pretends to delete a file, after asking."
  param "path" {
    type = string
  }
  confirm = "Delete ${param.path}?"
  template {
    text = "deleted ${param.path}"
  }
}

tool "delete_allowed" {
  description = "Asks when it can, runs when it cannot."
  confirm          = "Go on?"
  confirm_fallback = "allow"
  template {
    text = "ran"
  }
}

tool "with_icon" {
  description = "A tool with an icon and annotations."
  icon {
    file  = "red.png"
    sizes = ["1x1"]
  }
  annotations {
    title            = "Iconic"
    read_only_hint   = true
    destructive_hint = false
    idempotent_hint  = true
    open_world_hint  = false
  }
  template {
    text = "hi"
  }
}

prompt "travel" {
  description = "Plan a trip."
  arg "city" {
    description = "Where to"
    enum        = ["paris", "park city", "Pasadena", "rome"]
  }
  message "user" {
    text = "Plan a trip to ${arg.city}."
  }
}

prompt "look" {
  description = "Look at a picture and a report."
  message "user" {
    image {
      file = "red.png"
    }
  }
  message "user" {
    resource {
      uri = "docs://report"
    }
  }
  message "user" {
    text = "What do you see?"
  }
}

tool "book_table" {
  description = "Books a table, asking the user when and for how many."
  param "restaurant" {
    type = string
  }
  ask {
    message = "Booking at ${param.restaurant}: when, and for how many?"
    field "time" {
      type        = string
      description = "Time, such as 19:30"
      max_length  = 5
    }
    field "people" {
      type    = integer
      minimum = 1
      maximum = 12
      default = 2
    }
    field "extras" {
      type        = list(string)
      enum        = ["window", "quiet"]
      enum_titles = ["By the window", "A quiet corner"]
      required    = false
    }
  }
  template {
    text = "Booked ${param.restaurant} at ${answer.time} for ${answer.people}${answer.extras == null ? "" : format(" (%s)", join(", ", answer.extras))}"
  }
}
