// The `authflow` command-line tool.
