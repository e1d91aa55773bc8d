# Tools for Tic Tac Toe 1.0.0, made by toolhost import openapi from tictactoe-3.1.yaml (OpenAPI 3.1.0).
# 3 tools of the document's 3 operations.
# Review them before serving: keep the tools a model needs, sharpen their
# descriptions, and run toolhost validate.
# Base URL: TIC_TAC_TOE_BASE_URL, by default https://tictactoe.example.com/v1.
# Credentials come from the environment, never from this file: TIC_TAC_TOE_API_KEY, TIC_TAC_TOE_TOKEN.
#
# Left out:
# - webhooks (1): they are requests the API sends, not operations a tool calls

# GET /board
tool "get_board" {
  description = "Get the whole board. Retrieves the current state of the board and the winner."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("TIC_TAC_TOE_BASE_URL", "https://tictactoe.example.com/v1")}/board"
    headers = {
      Accept    = "application/json"
      "api-key" = sensitive(env("TIC_TAC_TOE_API_KEY"))
    }
  }
  result {
    field "board" {
      path     = "board"
      type     = list(list(string))
      optional = true
    }
    field "winner" {
      path        = "winner"
      type        = string
      description = "Winner of the game. `.` means nobody has won yet."
      optional    = true
    }
  }
}

# GET /board/{row}/{column}
tool "get_square" {
  description = "Get a single board square. Retrieves the requested square."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "row" {
    type        = integer
    description = "Board row (vertical coordinate)"
    minimum     = 1
    maximum     = 3
  }
  param "column" {
    type        = integer
    description = "Board column (horizontal coordinate)"
    minimum     = 1
    maximum     = 3
  }
  http {
    method = "GET"
    url    = "${env("TIC_TAC_TOE_BASE_URL", "https://tictactoe.example.com/v1")}/board/${param.row}/${param.column}"
    headers = {
      Accept        = "application/json"
      Authorization = sensitive("Bearer ${env("TIC_TAC_TOE_TOKEN")}")
    }
  }
  result {
    field "value" {
      path        = "@this"
      type        = string
      description = "Possible values for a board square. `.` means empty square."
    }
  }
  example "from the document" {
    args = {
      row    = 1
      column = 1
    }
    response = "\".\""
    result = {
      value = "."
    }
  }
}

# PUT /board/{row}/{column}
# Left out: callbacks (1): a tool cannot receive them.
tool "put_square" {
  description = "Set a single board square. Places a mark on the board and retrieves the whole board and the winner (if any)."
  annotations {
    destructive_hint = false
    idempotent_hint  = true
    open_world_hint  = true
  }
  param "row" {
    type        = integer
    description = "Board row (vertical coordinate)"
    minimum     = 1
    maximum     = 3
  }
  param "column" {
    type        = integer
    description = "Board column (horizontal coordinate)"
    minimum     = 1
    maximum     = 3
  }
  param "progress_url" {
    type        = string
    description = "Progress URL that should be called if asynchronous response is returned"
    required    = false
  }
  param "body" {
    type = string
    enum = [".", "X", "O"]
  }
  http {
    method = "PUT"
    url    = "${env("TIC_TAC_TOE_BASE_URL", "https://tictactoe.example.com/v1")}/board/${param.row}/${param.column}"
    headers = {
      progressUrl   = param.progress_url
      Accept        = "application/json"
      Authorization = sensitive("Bearer ${env("TIC_TAC_TOE_TOKEN")}")
    }
    body         = jsonencode(param.body)
    content_type = "application/json"
  }
  result {
    field "board" {
      path     = "board"
      type     = list(list(string))
      optional = true
    }
    field "winner" {
      path        = "winner"
      type        = string
      description = "Winner of the game. `.` means nobody has won yet."
      optional    = true
    }
  }
}
