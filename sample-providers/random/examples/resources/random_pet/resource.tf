# A new name whenever the AMI changes.
resource "random_pet" "server" {
  length = 2
  keepers = {
    ami_id = "ami-0123456789"
  }
}
