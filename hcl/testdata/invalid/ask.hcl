# ask blocks: forms the user fills in before a tool runs.
tool "empty_form" {
  ask { # ERROR: Empty form # DETAIL: use confirm
    message = "Details?"
  }
  template {
    text = "x"
  }
}

tool "bad_fields" {
  ask {
    message = "Details?"
    field "where" { # ERROR: Field type not allowed in a form # DETAIL: Forms are flat
      type = object({ city = string })
    }
    field "tags" { # ERROR: Multi-select without enum
      type = list(string)
    }
    field "size" {
      type        = string
      enum        = ["s", "m", "l"]
      enum_titles = ["Small", "Medium"] # ERROR: Titles do not match enum # DETAIL: 2 titles for 3 enum values
    }
    field "count" {
      type        = integer
      enum_titles = ["One"] # ERROR: Titles without enum
    }
    field "both" {
      type        = string
      enum        = ["a"]
      enum_titles = ["A"]
      enum_names  = ["A"] # ERROR: Two kinds of titles
    }
  }
  template {
    text = "x"
  }
}

tool "undeclared_answer" {
  ask {
    message = "When?"
    field "time" {
      type = string
    }
  }
  template {
    text = "at ${answer.tiem}" # ERROR: Undeclared field # DETAIL: Did you mean "time"?
  }
}

tool "answer_without_ask" {
  template {
    text = "at ${answer.time}" # ERROR: Unknown variable # DETAIL: Only param.NAME is available
  }
}

tool "two_asks" {
  ask {
    message = "a"
    field "x" {
      type = string
    }
  }
  ask { # ERROR: Duplicate ask block # DETAIL: ask.hcl:60:3. A tool has at most one ask block
    message = "b"
    field "y" {
      type = string
    }
  }
  template {
    text = "x"
  }
}

# An ask block without a message says what the message is for.
tool "ask_without_message" {
  ask { # ERROR: Missing message # DETAIL: the text the user is shown above the form
    field "x" {
      type = string
    }
  }
  template {
    text = "${answer.x}"
  }
}

# An answer is a value the user types: in a shell's script it would run as
# code, as a parameter would.
tool "answer_in_script" {
  ask {
    message = "Which word?"
    field "word" {
      type = string
    }
  }
  exec {
    command = ["sh", "-c", "echo ${answer.word}"] # ERROR: Parameter inside a script # DETAIL: puts the ask form's answer "word" into its text
  }
}

tool "empty_id" {
  ask {
    id      = "" # ERROR: Invalid id # DETAIL: give a short name
    message = "Details?"
    field "x" {
      type = string
    }
  }
  template {
    text = "x"
  }
}
