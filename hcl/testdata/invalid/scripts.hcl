# A parameter or an answer inside a script is refused however the command
# list is built, with the functions of the language, and on stdin when the
# program reads its script there.

tool "split_script" {
  param "x" {
    type = string
  }
  exec {
    command = concat(["sh", "-c"], split("\n", "echo ${param.x}")) # ERROR: Parameter inside a script # DETAIL: The script sh runs with -c may put parameter "x" into its text
  }
}

tool "formatlist_script" {
  param "x" {
    type = string
  }
  exec {
    command = concat(["sh"], formatlist("%s", ["-c", "echo ${param.x}"])) # ERROR: Parameter inside a script # DETAIL: may put parameter "x" into its text
  }
}

tool "coalescelist_script" {
  param "x" {
    type = string
  }
  exec {
    command = coalescelist([], ["sh", "-c", "echo ${param.x}"]) # ERROR: Parameter inside a script # DETAIL: The script sh runs with -c may put parameter "x"
  }
}

tool "answer_in_flatten" {
  ask {
    message = "Which word?"
    field "word" {
      type = string
    }
  }
  exec {
    command = flatten([["sh"], ["-c", "echo ${answer.word}"]]) # ERROR: Parameter inside a script # DETAIL: may put the ask form's answer "word" into its text
  }
}

tool "answer_on_stdin" {
  ask {
    message = "Which word?"
    field "word" {
      type = string
    }
  }
  exec {
    command = ["sh"]
    stdin   = "echo ${answer.word}" # ERROR: Parameter inside a script # DETAIL: The stdin argument is the program sh reads from its standard input, and it puts the ask form's answer "word"
  }
}

tool "awk_program_on_stdin" {
  param "x" {
    type = string
  }
  exec {
    command = ["awk", "-f", "/dev/stdin", "data.txt"]
    stdin   = "/${param.x}/ { print }" # ERROR: Parameter inside a script # DETAIL: program awk reads
  }
}
