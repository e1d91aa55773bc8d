# Content blocks of results and prompt messages, confirm, icons and the
# exec attributes of rich results.
tool "two_sources" {
  template {
    text = "x"
  }
  result {
    text {
      text = "a"
      path = "b" # ERROR: More than one source # DETAIL: A text block takes its data
    }
  }
}

tool "image_without_type" {
  template {
    text = "x"
  }
  result {
    image { # ERROR: Missing mime_type # DETAIL: mime_type = "image/png"
      data = "iVBORw0KGgo="
    }
  }
}

tool "audio_with_image_type" {
  template {
    text = "x"
  }
  result {
    audio {
      data      = "AAAA"
      mime_type = "image/png" # ERROR: Wrong media type # DETAIL: Use an image block
    }
    image {
      data      = "AAAA"
      mime_type = "text/plain" # ERROR: Wrong media type # DETAIL: Use a resource block
    }
  }
}

tool "file_of_other_media" {
  template {
    text = "{}"
  }
  result {
    image {
      path      = "x"
      data      = "AAAA" # ERROR: More than one source # DETAIL: An image block takes its data
      mime_type = "image/png"
    }
    image {
      file = "../valid/notes/a.md" # ERROR: Wrong media type # DETAIL: a.md is text/markdown by its extension, not an image. Use a resource block
    }
    audio {
      file = "../valid/notes/a.md" # ERROR: Wrong media type # DETAIL: not a sound. Use a resource block
    }
    audio {
      file      = "../valid/notes/a.md"
      mime_type = "audio/mpeg"
    }
  }
}

tool "bad_base64" {
  result {
    image {
      data      = "not base64!" # ERROR: Invalid base64 # DETAIL: illegal base64 data at input byte 3
      mime_type = "image/png"
    }
    audio {
      data      = "data:audio/wav;base64,UklGR%%%" # ERROR: Invalid base64
      mime_type = "audio/wav"
    }
    image {
      data      = "data:image/png;base64,iVBORw0KGgo"
      mime_type = "image/png"
    }
  }
}

tool "missing_file" {
  result {
    image {
      file = "no-such-picture.png" # ERROR: Missing file
    }
  }
}

tool "undeclared_in_text" {
  param "name" {
    type = string
  }
  template {
    text = "x"
  }
  result {
    text {
      text = "hello ${param.nmae}" # ERROR: Undeclared parameter # DETAIL: Did you mean "name"?
    }
  }
}

tool "output_needed" { # ERROR: Missing backend block # DETAIL: needs none
  result {
    text {
    }
  }
}

tool "bad_confirm" {
  param "path" {
    type = list(string)
  }
  confirm          = param.path # ERROR: Invalid confirm
  confirm_fallback = "allwo" # ERROR: Invalid confirm_fallback # DETAIL: Did you mean "allow"?
  template {
    text = "x"
  }
}

tool "fallback_alone" {
  confirm_fallback = "allow" # ERROR: confirm_fallback without confirm
  template {
    text = "x"
  }
}

tool "bad_icon" {
  icon {
    src = "http://example.com/icon.png" # ERROR: Invalid icon src # DETAIL: https
  }
  icon { # ERROR: Icon needs src or file
    theme = "dark"
  }
  template {
    text = "x"
  }
}

tool "exec_rich" {
  exec {
    command    = ["true"]
    stderr_log = "inf" # ERROR: Invalid stderr_log # DETAIL: Did you mean "info"?
    mime_type  = "image/png" # ERROR: mime_type without binary
  }
}

prompt "message_two_contents" {
  message "user" {
    text = "a"
    image { # ERROR: One content per message
      file = "../valid/notes/a.md"
    }
  }
}

prompt "path_in_prompt" {
  message "user" {
    text {
      path = "data" # ERROR: path without output
    }
  }
}

resource "two_sources" {
  uri  = "docs://two"
  file = "content.hcl"
  template { # ERROR: Two sources
    text = "x"
  }
}

resource "no_source" { # ERROR: Missing file
  uri = "docs://none"
}

tool "list_as_text" {
  param "tags" {
    type = list(string)
  }
  template {
    text = "x"
  }
  result {
    text {
      text = param.tags # ERROR: Not a string # DETAIL: text in a text block must be a string
    }
  }
}
