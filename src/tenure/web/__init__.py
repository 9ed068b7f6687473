"""The web page (`tenure ui`): knowledge map, review queue, memory detail and recall, on loopback.
Plain HTML and JavaScript served by a small Starlette app over the Tenure API; no build step."""
