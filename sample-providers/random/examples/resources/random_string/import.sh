# The imported value becomes the result.
terraform import random_string.suffix 'abc123xy'
