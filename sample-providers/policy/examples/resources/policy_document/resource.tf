resource "policy_document" "read_logs" {
  name = "read-logs"

  statement {
    sid     = "ReadLogs"
    actions = ["s3:GetObject", "s3:ListBucket"]
    principals = {
      AWS = { identifiers = ["arn:aws:iam::123456789012:role/reader"] }
    }
    condition = jsonencode({
      StringEquals = { "aws:PrincipalTag/team" = "infra" }
    })
  }

  tag = [{ key = "team", value = "infra" }]
}
