resource "random_integer" "port" {
  min = 8000
  max = 8999
}
