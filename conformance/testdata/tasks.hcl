# The tools the tasks-* scenarios of the conformance suite call (the tasks
# extension, SEP-2663): task = "optional" runs a call as a task for clients
# that declare the extension, task = "required" refuses the others.

# A tool without task support: its calls always answer at once.
tool "greet" {
  description = "Greets someone by name."
  param "name" {
    type        = string
    description = "Who to greet."
  }
  template {
    text = "Hello, ${param.name}!"
  }
}

# Sleeps for the given seconds, then answers; tasks/cancel kills the sleep.
tool "slow_compute" {
  description = "Sleeps for the given number of seconds, then says it is done."
  task        = "optional"
  param "seconds" {
    type        = number
    description = "How long to sleep, in seconds (0 answers at once)."
  }
  param "label" {
    type        = string
    description = "A label echoed in the result."
    default     = ""
  }
  exec {
    command = ["sh", "-c", "sleep \"$1\" && printf 'computed %s after %s seconds' \"$2\" \"$1\"", "slow_compute", param.seconds, param.label]
    timeout = "90s"
  }
}

# Fails as a tool (an isError result) after about a second; runs only as a
# task.
tool "failing_job" {
  description = "Runs for about a second, then fails."
  task        = "required"
  exec {
    command = ["sh", "-c", "sleep 1; echo 'the job failed, as it always does' >&2; exit 1"]
    timeout = "10s"
  }
}

# A protocol-level failure: the result (5 MB of text) is larger than a task
# keeps (4 MiB), so the task fails with a JSON-RPC error rather than
# completing with a result.
tool "protocol_error_job" {
  description = "Produces a result too large for a task to keep."
  task        = "optional"
  exec {
    command    = ["sh", "-c", "yes xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx | head -c 5000000"]
    max_output = 8388608
    timeout    = "10s"
  }
}

# Asks the user to confirm: the task waits in input_required with the
# question in inputRequests until tasks/update answers it.
tool "confirm_delete" {
  description = "Deletes a file after the user confirms."
  task        = "optional"
  param "filename" {
    type        = string
    description = "The file to delete."
  }
  confirm = "Delete ${param.filename}?"
  template {
    text = "deleted ${param.filename}"
  }
}

# tasks-mrtr-composition: asks for a name (the suite answers the field
# "name"), then runs as a task.
tool "test_tool_with_task" {
  description = "Asks for the user's name, then greets them from a task."
  task        = "required"
  ask {
    message = "What is your name?"
    field "name" {
      type        = string
      description = "Your name."
    }
  }
  template {
    text = "Hello from a task, ${answer.name}!"
  }
}
