resource "random_password" "db" {
  length           = 24
  override_special = "!#$%&*()-_=+[]{}<>:?"
}
