package cli

// starterTopic is what the starter's exec tool gives, for its server's
// instructions.
const starterTopic = "where programs are installed"

// starterExec is the starter's exec tool: where.exe, which every Windows
// has. The pattern keeps a name from passing for one of its /options.
const starterExec = `tool "find_program" {
  description = "Says where a program is installed, as where.exe finds it on the PATH."
  param "name" {
    type        = string
    description = "The program's name, such as notepad."
    pattern     = "^[A-Za-z0-9._]+$"
  }
  exec {
    command = ["where.exe", param.name]
    timeout = "5s"
  }
}
`
