# Tools for Swagger Petstore 1.0.0, made by toolhost import openapi from petstore-expanded-3.0.yaml (OpenAPI 3.0.0).
# 4 tools of the document's 4 operations.
# Review them before serving: keep the tools a model needs, sharpen their
# descriptions, and run toolhost validate.
# Base URL: SWAGGER_PETSTORE_BASE_URL, by default https://petstore.swagger.io/v2.

# GET /pets
tool "find_pets" {
  description = "Returns all pets from the system that the user has access to Nam sed condimentum est. Maecenas tempor sagittis sapien, nec rhoncus sem sagittis sit amet. Aenean at gravida augue, ac iaculis sem. Curabitur odio lorem, ornare eget elementum nec, cursus id lectus. Duis mi turpis, pulvinar ac eros ac, tincidunt varius justo. In hac habitasse platea dictumst."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "tags" {
    type        = list(string)
    description = "tags to filter by"
    required    = false
  }
  param "limit" {
    type        = integer
    description = "maximum number of results to return"
    required    = false
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "https://petstore.swagger.io/v2")}/pets"
    query = {
      tags  = param.tags
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
tool "add_pet" {
  description = "Creates a new pet in the store. Duplicates are allowed"
  annotations {
    destructive_hint = false
    open_world_hint  = true
  }
  param "name" {
    type = string
  }
  param "tag" {
    type     = string
    required = false
  }
  http {
    method = "POST"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "https://petstore.swagger.io/v2")}/pets"
    headers = {
      Accept = "application/json"
    }
    body = jsonencode({ for k, v in {
      name = param.name
      tag  = param.tag
    } : k => v if v != null })
    content_type = "application/json"
  }
  result {
    field "id" {
      path = "id"
      type = integer
    }
    field "name" {
      path = "name"
      type = string
    }
    field "tag" {
      path     = "tag"
      type     = string
      optional = true
    }
  }
}

# GET /pets/{id}
tool "find_pet_by_id" {
  description = "Returns a user based on a single ID, if the user does not have access to the pet"
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "id" {
    type        = integer
    description = "ID of pet to fetch"
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "https://petstore.swagger.io/v2")}/pets/${param.id}"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "id" {
      path = "id"
      type = integer
    }
    field "name" {
      path = "name"
      type = string
    }
    field "tag" {
      path     = "tag"
      type     = string
      optional = true
    }
  }
}

# DELETE /pets/{id}
tool "delete_pet" {
  description = "deletes a single pet based on the ID supplied"
  annotations {
    destructive_hint = true
    idempotent_hint  = true
    open_world_hint  = true
  }
  confirm = "DELETE /pets/${param.id}: go ahead?"
  param "id" {
    type        = integer
    description = "ID of pet to delete"
  }
  http {
    method = "DELETE"
    url    = "${env("SWAGGER_PETSTORE_BASE_URL", "https://petstore.swagger.io/v2")}/pets/${param.id}"
  }
}
