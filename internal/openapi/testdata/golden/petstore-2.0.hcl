# Tools for Swagger Petstore 1.0.0, made by toolhost import openapi from petstore-2.0.json (OpenAPI 3.0.3).
# 3 tools of the document's 3 operations.
# Review them before serving: keep the tools a model needs, sharpen their
# descriptions, and run toolhost validate.
# Base URL: SWAGGER_PETSTORE_BASE_URL, by default http://petstore.swagger.io/v1.

# GET /pets
tool "list_pets" {
  description = "List all pets"
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "limit" {
    type        = integer
    description = "How many items to return at one time (max 100)"
    required    = false
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "http://petstore.swagger.io/v1")}/pets"
    query = {
      limit = param.limit
    }
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "items" {
      path = "@this"
      type = list(object({ id = integer, name = string, tag = optional(string) }))
    }
  }
}

# POST /pets
tool "create_pets" {
  description = "Create a pet"
  annotations {
    destructive_hint = false
    open_world_hint  = true
  }
  http {
    method = "POST"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "http://petstore.swagger.io/v1")}/pets"
  }
}

# GET /pets/{petId}
tool "show_pet_by_id" {
  description = "Info for a specific pet"
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "pet_id" {
    type        = string
    description = "The id of the pet to retrieve"
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "http://petstore.swagger.io/v1")}/pets/${param.pet_id}"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "items" {
      path = "@this"
      type = list(object({ id = integer, name = string, tag = optional(string) }))
    }
  }
}
