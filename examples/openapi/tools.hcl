# Tools for Swagger Petstore - OpenAPI 3.0 1.0.27-SNAPSHOT, made by toolhost import openapi from petstore.yaml (OpenAPI 3.0.4).
# 4 tools of the document's 19 operations, chosen with --operation findPetsByStatus --operation getPetById --operation getInventory --operation getOrderById.
# Review them before serving: keep the tools a model needs, sharpen their
# descriptions, and run toolhost validate.
# Base URL: SWAGGER_PETSTORE_OPENAPI_BASE_URL, by default https://petstore3.swagger.io/api/v3.
# Credentials come from the environment, never from this file: SWAGGER_PETSTORE_OPENAPI_TOKEN, SWAGGER_PETSTORE_OPENAPI_API_KEY.

# GET /pet/findByStatus
tool "find_pets_by_status" {
  description = "Finds Pets by status. Multiple status values can be provided with comma separated strings."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "status" {
    type        = string
    description = "Status values that need to be considered for filter"
    enum        = ["available", "pending", "sold"]
    default     = "available"
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_OPENAPI_BASE_URL", "https://petstore3.swagger.io/api/v3")}/pet/findByStatus"
    query = {
      status = param.status
    }
    headers = {
      Accept        = "application/json"
      Authorization = sensitive("Bearer ${env("SWAGGER_PETSTORE_OPENAPI_TOKEN")}")
    }
  }
  result {
    field "items" {
      path = "@this"
      type = list(object({ category = optional(object({ id = optional(integer), name = optional(string) })), id = optional(integer), name = string, photoUrls = list(string), status = optional(string), tags = optional(list(any)) }))
    }
  }
}

# GET /pet/{petId}
tool "get_pet_by_id" {
  description = "Find pet by ID. Returns a single pet."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "pet_id" {
    type        = integer
    description = "ID of pet to return"
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_OPENAPI_BASE_URL", "https://petstore3.swagger.io/api/v3")}/pet/${param.pet_id}"
    headers = {
      Accept  = "application/json"
      api_key = sensitive(env("SWAGGER_PETSTORE_OPENAPI_API_KEY"))
    }
  }
  result {
    field "category" {
      path     = "category"
      type     = object({ id = optional(integer), name = optional(string) })
      optional = true
    }
    field "id" {
      path     = "id"
      type     = integer
      optional = true
    }
    field "name" {
      path = "name"
      type = string
    }
    field "photo_urls" {
      path = "photoUrls"
      type = list(string)
    }
    field "status" {
      path        = "status"
      type        = string
      description = "pet status in the store"
      optional    = true
    }
    field "tags" {
      path     = "tags"
      type     = list(object({ id = optional(integer), name = optional(string) }))
      optional = true
    }
  }
}

# GET /store/inventory
tool "get_inventory" {
  description = "Returns pet inventories by status. Returns a map of status codes to quantities."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_OPENAPI_BASE_URL", "https://petstore3.swagger.io/api/v3")}/store/inventory"
    headers = {
      Accept  = "application/json"
      api_key = sensitive(env("SWAGGER_PETSTORE_OPENAPI_API_KEY"))
    }
  }
}

# GET /store/order/{orderId}
tool "get_order_by_id" {
  description = "Find purchase order by ID. For valid response try integer IDs with value <= 5 or > 10. Other values will generate exceptions."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "order_id" {
    type        = integer
    description = "ID of order that needs to be fetched"
  }
  http {
    method = "GET"
    url    = "${env("SWAGGER_PETSTORE_OPENAPI_BASE_URL", "https://petstore3.swagger.io/api/v3")}/store/order/${param.order_id}"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "complete" {
      path     = "complete"
      type     = bool
      optional = true
    }
    field "id" {
      path     = "id"
      type     = integer
      optional = true
    }
    field "pet_id" {
      path     = "petId"
      type     = integer
      optional = true
    }
    field "quantity" {
      path     = "quantity"
      type     = integer
      optional = true
    }
    field "ship_date" {
      path     = "shipDate"
      type     = string
      optional = true
    }
    field "status" {
      path        = "status"
      type        = string
      description = "Order Status"
      optional    = true
    }
  }
}
