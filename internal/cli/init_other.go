//go:build !windows

package cli

// starterTopic is what the starter's exec tool gives, for its server's
// instructions.
const starterTopic = "word counts"

// starterExec is the starter's exec tool: wc, which every unix has.
const starterExec = `tool "word_count" {
  description = "Counts the words of a text."
  param "text" {
    type        = string
    description = "The text to count."
  }
  exec {
    command = ["wc", "-w"]
    stdin   = param.text
    timeout = "5s"
  }
}
`
