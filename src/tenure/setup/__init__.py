"""Client set-up: writes (and takes back exactly) the configuration that points coding agents at
`tenure serve`, and the hooks that keep their work sessions honest."""
