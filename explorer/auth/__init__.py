"""OAuth 2.1 logins to remote MCP servers, through the SDK's client auth (`mcp.client.auth`).

`login.py` fits the SDK's providers to the explorer (a `Login` per connection), `login_requests.py` says
why one of its requests failed and bounds their answers, `redirect.py` is the
authorization step (loopback listener, browser, or fetching the URL), `store.py` keeps tokens and client
registrations per server URL in the data folder. The connection layer takes a `Login`'s `auth` as the
HTTP client's auth; nothing here imports Textual.
"""
