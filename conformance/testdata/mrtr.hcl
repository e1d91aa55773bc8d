# Multi-round-trip requests (SEP-2322): the input-required-result-*
# scenarios of the 2026-07-28 requirement set. A tool with confirm or ask
# answers a 2026-07-28 call with an input-required result, and runs when
# the client calls it again with the answer and the signed requestState.
# The scenarios that need sampling or roots input requests, or a prompt
# that asks, are beyond a declarative host.

# input-required-result-basic-elicitation, -missing-input-response,
# -result-type, -ignore-extra-params, -validate-input
tool "test_input_required_result_elicitation" {
  description = "MRTR: asks the user's name, then greets them."
  ask {
    id      = "user_name"
    message = "What is your name?"
    field "name" {
      type = string
    }
  }
  template {
    text = "Hello, ${answer.name}!"
  }
}

# input-required-result-request-state: the text says state-ok once the
# state came back valid.
tool "test_input_required_result_request_state" {
  description = "MRTR: returns InputRequiredResult with requestState"
  confirm     = "Please confirm"
  template {
    text = "state-ok: requestState validated"
  }
}

# input-required-result-multi-round: a confirmation, then a form, each a
# round with a state of its own.
tool "test_input_required_result_multi_round" {
  description = "MRTR: asks twice, in two rounds."
  confirm     = "Step 1: go on to the question?"
  ask {
    id      = "step2"
    message = "Step 2: What is your favorite color?"
    field "color" {
      type = string
    }
  }
  template {
    text = "Your favorite color is ${answer.color}."
  }
}

# input-required-result-tampered-state: an altered state is refused with
# a JSON-RPC error.
tool "test_input_required_result_tampered_state" {
  description = "MRTR: HMAC-signed requestState integrity test"
  confirm     = "Run the tampered-state test?"
  template {
    text = "state accepted"
  }
}
