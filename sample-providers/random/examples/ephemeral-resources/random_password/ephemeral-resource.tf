# Never stored in state or plan; pass it to a write-only attribute.
ephemeral "random_password" "db" {
  length = 24
}
