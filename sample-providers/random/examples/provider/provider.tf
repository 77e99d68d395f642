terraform {
  required_providers {
    random = { source = "registry.terraform.io/tfwasm/random" }
  }
}

provider "random" {}
