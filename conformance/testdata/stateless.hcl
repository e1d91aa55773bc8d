# The tools the server-stateless scenario (2026-07-28, SEP-2575) calls to
# exercise subscriptions/listen streams, logging and the streams of calls.
#
# The two trigger tools change what the server lists the way an operator
# does: they write (or remove) a config file in this directory, and the hot
# reload that follows sends list_changed to the listen streams that asked
# for it. The files they write (listen-extra-*.hcl) are git-ignored
# (testdata/.gitignore); a run of the suite may leave them behind, with
# the tool or prompt they add: delete them.
# files/toggle-config.sh writes each under another name and renames it
# into place, so that the reload never reads it half-written.
#
# test_missing_capability is not declared: it must need a client
# capability no tool of a declarative host uses (sampling), see
# conformance/expected-failures.yml.

# sep-2575-server-sends-tools-list-changed-on-subscription,
# sep-2575-server-tags-subscription-id, sep-2575-server-honors-notification-filter
tool "test_trigger_tool_change" {
  description = "Adds the tool test_listen_extra_tool, or removes it when it is there: the tool list changes at each call."
  exec {
    command = ["sh", "files/toggle-config.sh", "listen-extra-tool.hcl", <<-EOT
      tool "test_listen_extra_tool" {
        description = "Added by test_trigger_tool_change."
        template { text = "extra" }
      }
    EOT
    ]
    timeout = "5s"
  }
}

# sep-2575-server-sends-prompts-list-changed-on-subscription
tool "test_trigger_prompt_change" {
  description = "Adds the prompt test_listen_extra_prompt, or removes it when it is there: the prompt list changes at each call."
  exec {
    command = ["sh", "files/toggle-config.sh", "listen-extra-prompt.hcl", <<-EOT
      prompt "test_listen_extra_prompt" {
        description = "Added by test_trigger_prompt_change."
        message "user" { text = "extra" }
      }
    EOT
    ]
    timeout = "5s"
  }
}

# sep-2575-server-no-log-without-loglevel: logs a line at info while it
# runs; a 2026-07-28 request that sets no io.modelcontextprotocol/logLevel
# gets none of it.
tool "test_logging_tool" {
  description = "Logs one message at info level while it runs."
  exec {
    command    = ["sh", "-c", "echo 'test_logging_tool is running' >&2; echo done"]
    stderr_log = "info"
    timeout    = "5s"
  }
}

# sep-2575-http-server-no-independent-requests-on-stream: asks the user
# before it runs. Over a 2026-07-28 request the server never sends the
# question as a request of its own on the call's stream: the call's answer
# carries it (or, where the server cannot ask, says so).
tool "test_streaming_elicitation" {
  description = "Asks the user to go on, reports progress, then says it is done."
  ask {
    message = "Run test_streaming_elicitation?"
    field "go_on" {
      type        = bool
      description = "Whether to run it"
      default     = true
    }
  }
  exec {
    command = ["sh", "-c", "echo '::progress 50/100 halfway' >&2; echo 'Streaming complete'"]
    timeout = "5s"
  }
}
