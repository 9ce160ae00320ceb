"""Secrets shaped to break masking that quotes first: shell quotes, `$`, backslashes, newlines."""

SECRETS = [
    "s3cr'et-token",
    'say"hi"-token',
    "pa$$word-$(id)",
    "back\\slash-tok",
    "'edge-quotes'",
    "nl\ntok`x`",
]
